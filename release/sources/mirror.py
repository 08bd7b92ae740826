"""History questions over an upstream's partial mirror, deepening it only as far as each needs.

Which branches hold a commit, merge-bases, counts, logs, ancestry and first-parent lines:
each walk runs on what the mirror (``release.sources.partial``) holds, finds where history
is cut off (its shallow marks), and fetches below that by date, then by count, until the
answer is exact; a pair once found whole is not walked again.
"""

from __future__ import annotations

import os
from pathlib import Path

from release.sources.git import _SHA, LogEntry, Remote, remote_error
from release.sources.partial import FIRST_DEPTH, FIRST_WINDOW, HISTORY_FILTER, PartialMirror, not_there

# Per mirror: "<commit> <time>" for each commit whose one parent a fetch by date showed older
# than <time> (it cut there): such a boundary hides nothing newer.
CUT_BY_DATE = "shallow-dated"
SKEW = 2 * 86400  # clock skew allowed between a commit and its descendants when bounding by date
# A fetch by date that selects no commit: git says so over file:// and ssh; over smart HTTP the
# server's words are lost (stateless: it just ends the shallow-info section), and the client
# reports the section it could not read. Both mean "nothing that new here".
_NOTHING_SINCE = ("no commits selected for shallow requests", "error processing shallow info")


def nothing_since(stderr: str) -> bool:
    """Whether a ``--shallow-since`` fetch failed only because no commit is that new (any transport)."""
    low = (stderr or "").lower()
    return any(s in low for s in _NOTHING_SINCE)


class Mirror(PartialMirror):
    """A cached partial mirror of one remote that answers history questions (module docstring).

    Use as a context manager (``PartialMirror``: a file lock, so two runs never fetch into one
    mirror at once).
    """

    def __init__(self, cache: Path, remote: Remote, *, first_depth: int = FIRST_DEPTH,
                 first_window: int = FIRST_WINDOW):
        super().__init__(cache, remote, first_depth=first_depth, first_window=first_window)
        # Pairs whose ranges were found whole: a fetch only ever adds history (``_keep_history``),
        # so they stay whole and are not walked again.
        self._whole: dict[tuple[str, str | None], tuple[list[str], list[str]]] = {}

    def branch_contains(self, branch: str, sha: str, since: int, tip: str | None = None, *,
                        pair: str | None = None) -> bool:
        """Whether the remote ``branch`` as it is now contains ``sha`` (here); see ``containing``."""
        return branch in self.containing((branch,), sha, since, {branch: tip} if tip else None, pair=pair)

    def containing(self, branches: tuple[str, ...], sha: str, since: int,
                   listed: dict[str, str] | None = None, *, pair: str | None = None) -> set[str]:
        """Which of the remote ``branches`` as they are now contain ``sha`` (here), in one fetch of
        only their commits newer than ``since`` (a time before ``sha`` was committed), no trees.

        A descendant is committed after its ancestors, so the part of a branch newer than
        ``since`` holds every path from its tip to ``sha``. git cuts a merge whose other parent
        is older than ``since`` off whole, so a boundary commit newer than ``since`` is deepened
        until none is left (an upstream sync merges months-old commits); one with a single parent
        that this date cut is not (git walks down only through commits no older than the date, so
        that parent is older: a release branch forked from main long before). A branch whose
        whole history is older, or that is gone, holds nothing.

        ``listed``: the tips the remote listed a moment ago. When every branch is still where this
        mirror last fetched it and its history is here back past ``since``, nothing is fetched:
        a pin re-checked each day against a branch that did not move costs no fetch.

        ``pair``: a commit here whose history beside ``sha``'s is asked next (the old pin: how
        the new one relates to it). The fetch of the branches then also asks for both commits'
        histories as far as that question's first round by date reaches (``_first_since``),
        in the same request: the round is not a fetch of its own.
        """
        if not branches:
            return set()
        # A listed tip is asked for by its SHA: git then skips listing the remote's refs again
        # (a round trip); the branch is taken as it was listed a moment ago.
        specs = [f"+{listed[b] if listed and listed.get(b) else f'refs/heads/{b}'}:{self.tracking_ref(b)}"
                 for b in branches]
        covered = self._covers_all(branches, since)
        if covered and listed is not None:
            here = self._tips()
            if all(listed.get(b) is not None and here.get(b) == listed[b] for b in branches):
                return {b for b in self._holding(sha) if b in branches}
        cut = since
        if not covered and pair is not None and self.first_window > 0:
            cut = min(since, self._first_since(sha, pair))
            specs += [sha, pair]
        before = self.shallow()
        status, err = self._fetch("origin", *(() if covered else (f"--shallow-since={cut}",)), *specs)
        if status == 0 and not covered:
            self._note_cut_by_date(self.shallow() - before, cut)
        if status != 0:
            low = err.lower()
            if listed and not_there(low) and not nothing_since(low):  # a listed tip gone since: by name
                return self.containing(branches, sha, since)
            if nothing_since(low) or "couldn't find remote ref" in low:
                if len(branches) > 1:  # one branch spoilt the batch: ask each alone
                    return {b for b in branches if self.branch_contains(b, sha, since)}
                return set()
            raise remote_error(self.remote, "cannot fetch from", err)
        if listed and all(listed.get(b) for b in branches):  # each asked for by SHA: that is its tip now
            tips = {b: listed[b] for b in branches}
            for b, t in tips.items():
                self.set_by_fetch(b, t)
        else:
            for b in branches:  # some asked for by name: where they are now, git says
                self._set_refs.pop(self.tracking_ref(b), None)
            tips = {b: t for b, t in self._tips().items() if b in branches}
        step = max(self.first_depth, 1)
        while True:  # one git process per question for all branches, one fetch per deepening
            holding = self._holding(sha)
            rest = {t for b, t in tips.items() if b not in holding}
            if not rest:
                break
            reached = self._run("rev-list", "--missing=allow-promisor", *sorted(rest), f"^{sha}")[1].split()
            edge = self._may_hide(self.shallow().intersection(reached), since)
            if not any(t >= since for t in self._times(edge).values()):
                break
            before = self.shallow()
            status, err = self._fetch_below(f"--deepen={step}", rest)
            if status != 0:
                raise remote_error(self.remote, "cannot fetch from", err)
            if self.shallow() == before:
                break
            step *= 2
        return {b for b in tips if b in holding}

    def _note_cut_by_date(self, marked: set[str], since: int) -> None:
        """Record which commits a fetch by date (``--shallow-since=since``) cut that have one
        parent: that parent is older than ``since``. A fact about the commit, so it is kept
        across runs (``CUT_BY_DATE`` in the mirror), and the next day's question asks nothing."""
        one = {c for c, parents in self._parents_here(marked).items() if len(parents) == 1}
        known = self._cut_by_date()
        if not any(known.get(c, since + 1) > since for c in one):
            return
        known.update({c: min(known.get(c, since), since) for c in one})
        shallow = self.shallow()  # the rest are whole again: nothing to say about them
        path = self.path / CUT_BY_DATE
        tmp = path.with_name(path.name + ".new")
        tmp.write_text("".join(f"{c} {t}\n" for c, t in sorted(known.items()) if c in shallow))
        os.replace(tmp, path)

    def _cut_by_date(self) -> dict[str, int]:
        """``{commit: time}``: commits here whose one parent is older than ``time``."""
        try:
            text = (self.path / CUT_BY_DATE).read_text()
        except FileNotFoundError:
            return {}
        pairs = (line.split() for line in text.splitlines())
        return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and _SHA.match(p[0]) and p[1].isdigit()}

    def _may_hide(self, edge: set[str], since: int) -> set[str]:
        """The boundary commits that may cut off history no older than ``since``: all but those
        whose one parent is known to be older (``_note_cut_by_date``)."""
        known = self._cut_by_date() if edge else {}
        return {c for c in edge if known.get(c, since + 1) > since}

    def _tips(self) -> dict[str, str]:
        """``{branch: tip}`` of every remote-tracking branch here, in one git process."""
        out = self._run("for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/origin/")[1]
        pairs = (line.split() for line in out.splitlines())
        return {ref.removeprefix("refs/remotes/origin/"): sha for ref, sha in pairs}

    def _holding(self, sha: str) -> set[str]:
        """Remote-tracking branches here whose history (as far as it is here) holds ``sha``."""
        out = self._run("for-each-ref", "--contains", sha, "--format=%(refname)", "refs/remotes/origin/")[1]
        return {ref.removeprefix("refs/remotes/origin/") for ref in out.split()}

    def _covers_all(self, branches: tuple[str, ...], since: int) -> bool:
        """Whether this mirror already has every branch's history back past ``since``."""
        tips = self._tips()
        if any(b not in tips for b in branches):
            return False
        # A boundary commit no older than ``since`` has descendants no older than ``since - SKEW``
        # all the way up to the tip: a walk stopping below that finds every one.
        reached = self._reach(*sorted({tips[b] for b in branches}), since=since - SKEW)
        edge = self._may_hide(self.shallow().intersection(reached), since)
        return all(t < since for t in self._times(edge).values())

    def _range(self, desc: str, anc: str | None) -> list[str]:
        """``anc..desc`` as far as it is here (no fetch)."""
        args = ["rev-list", "--missing=allow-promisor", desc] + ([f"^{anc}"] if anc else [])
        return self._run(*args)[1].split()

    def complete(self, desc: str, anc: str | None = None) -> list[str]:
        """The commits reachable from ``desc`` but not ``anc``, deepening until none is cut off."""
        return self.complete_between(desc, anc)[0]

    def complete_between(self, a: str, b: str | None) -> tuple[list[str], list[str]]:
        """Deepen until ``b..a`` and ``a..b`` are whole, and return them (their merge-base and
        counts are then exact).

        First by date, both sides in one fetch: every commit of either history newer than the
        newest cut-off commit less a window (at least twice the time between ``a`` and ``b``,
        whose merge-base is seldom further below the older one), the window doubling each round
        and each round reaching below the last one's date. A commit a fetch by date cut with its
        one parent older (``_note_cut_by_date``) counts as of that date, not its own. A
        date reaches down every merged side line at once, where a depth would go that many
        commits down each of them. When a round by date brings nothing (a cut-off parent older
        than the window: a merge of months-old commits), rounds by count take over: only the
        side whose cut-off history is newest, as git's own merge-base walk goes, its step
        doubling each time. Each round walks both ranges once (``a...b``); a pair found whole
        is not walked again (a fetch only ever adds history, ``_keep_history``).

        Either side may be a local name (``refs/remotes/origin/<branch>``): the remote is asked
        for the commit it names here, never for the name, which only this mirror has.
        """
        a = self.resolve(a)
        b = self.resolve(b) if b else b
        if a == b:  # one commit: nothing of either history lacks from the other's (no walk)
            return [], []
        if (a, b) in self._whole:
            known = self._whole[(a, b)]
            return list(known[0]), list(known[1])
        window = self._first_window(a, b) if self.first_window > 0 else 0
        depth: dict[str, int] = {}
        done: set[str] = set()  # sides the remote has nothing older for
        last = 2**63  # the date the last round by date fetched down to
        while True:
            left, right = self._sides(a, b)
            shallow = self.shallow()
            cuts: dict[str, set[str]] = {}
            for desc, anc, inside in ((a, b, left), (b, a, right)):
                if desc and desc not in done:
                    cut = shallow.intersection(inside)  # parents, maybe in the range, not here
                    if cut:
                        cuts[desc] = cut
                if anc and desc and anc not in done and desc not in cuts:
                    hidden = self._hiding(inside, anc, shallow)
                    if hidden:
                        cuts[anc] = cuts.get(anc, set()) | hidden
            if not cuts:
                self._whole[(a, b)] = (list(left), list(right))
                if b:
                    self._whole[(b, a)] = (list(right), list(left))
                return list(left), list(right)
            # A cut a fetch by date left, whose one parent is older than that date: what it hides
            # is older than the date, so the next round reaches below the date, not below it.
            dated = self._cut_by_date()
            times = {c: min(t, dated.get(c, t)) for c, t in self._times(set().union(*cuts.values())).items()}
            before = self.shallow()
            if window:
                # Below the last round's date too: whatever is still cut off there is older.
                since = min(max(times.values()), last) - window
                last = since
                status, err = self._fetch_below(f"--shallow-since={since}", cuts)
                if status != 0 and not nothing_since(err):
                    raise remote_error(self.remote, "cannot fetch from", err)
                if status == 0 and self.shallow() != before:
                    window *= 2
                    continue
                window = 0  # nothing newer left to bring: by count from here
            tip = max(cuts, key=lambda t: max(times[c] for c in cuts[t]))
            depth[tip] = depth[tip] * 2 if tip in depth else max(self.first_depth, 1)
            status, err = self._fetch_below(f"--deepen={depth[tip]}", (tip,))
            if status != 0:
                raise remote_error(self.remote, "cannot fetch from", err)
            if self.shallow() == before:
                done.add(tip)

    def _first_window(self, a: str, b: str | None) -> int:
        """How far below its newest cut ``complete_between(a, b)`` first fetches by date: at least
        twice the time between the two commits, whose merge-base is seldom further below."""
        ends = self._times({a, b} if b else {a})
        return max(self.first_window, 2 * (max(ends.values()) - min(ends.values())))

    def _first_since(self, a: str, b: str) -> int:
        """The date ``complete_between(a, b)``'s first round fetches down to when both commits
        are the newest cuts of their histories (just fetched alone, as a roll does)."""
        return max(self._times({a, b}).values()) - self._first_window(a, b)

    def _sides(self, a: str, b: str | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """``b..a`` and ``a..b`` as far as they are here, each commit with its parents, newest
        first, in one walk (``a...b``; without ``b``, all of ``a``'s history and nothing)."""
        args = ["rev-list", "--missing=allow-promisor", "--parents"]
        if b is None:
            lines = self._run(*args, a)[1].splitlines()
            return {line.split()[0]: line.split()[1:] for line in lines}, {}
        left: dict[str, list[str]] = {}
        right: dict[str, list[str]] = {}
        for line in self._run(*args, "--left-right", f"{a}...{b}")[1].splitlines():
            sha, *parents = line[1:].split()
            (left if line[0] == "<" else right)[sha] = parents
        return left, right

    def _hiding(self, inside: dict[str, list[str]], anc: str, shallow: set[str]) -> set[str]:
        """Boundary commits of ``anc``'s history that may hide ancestors of the range ``inside``
        (``anc..desc`` with parents).

        A commit of the range whose parents are all outside it sits on ``anc``'s history; it is
        truly in the range only if no cut-off part of ``anc``'s history reaches it. Whatever does
        is older than the boundary commit hiding it (committer dates, with ``SKEW`` for clocks),
        so only boundary commits no older than the range's lowest commits are returned. A lowest
        commit with ``anc`` among its parents is no ancestor of ``anc`` (that would be a cycle):
        the child of the old pin that a forward range starts with asks for nothing.
        """
        bottoms = {sha for sha, parents in inside.items()
                   if anc not in parents and not any(p in inside for p in parents)}
        if not bottoms or not shallow:
            return set()
        shallow = self._present(shallow)  # dates of the others would be fetched
        times = self._times(shallow | bottoms)
        lowest = min(times[c] for c in bottoms)
        near = {s for s in shallow if times[s] + SKEW >= lowest}
        # Only those on ``anc``'s history: every commit between it and one of them is a
        # descendant, so no older than ``lowest - 2 * SKEW``; the walk stops below that.
        return near.intersection(self._reach(anc, since=lowest - 2 * SKEW)) if near else set()

    def _reach(self, *tips: str, since: int) -> list[str]:
        """Commits reachable from ``tips`` through commits no older than ``since`` (a walk that
        stops at older ones: git prunes by date only when nothing is excluded)."""
        return self._run("rev-list", "--missing=allow-promisor", f"--max-age={since}", *tips)[1].split()

    def merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of two commits that are here (deepening as needed)."""
        self.complete_between(a, b)
        status, out, _ = self._run("merge-base", a, b, check=False)
        return out.strip() or None if status == 0 else None

    def count(self, desc: str, anc: str | None = None) -> int:
        """How many commits ``anc..desc`` holds (deepening as needed)."""
        return len(self.complete(desc, anc))

    def is_ancestor(self, anc: str, desc: str) -> bool:
        """Whether ``anc`` is reachable from ``desc``. Both must be here (see ``fetch_commit``)."""
        if anc == desc:  # a commit is its own ancestor (a pin at its branch's tip): no git process
            return True
        if (anc, desc) in self._whole:  # both histories already walked whole: no git process
            return not self._whole[(anc, desc)][0]
        if self._run("merge-base", "--is-ancestor", anc, desc, check=False)[0] == 0:
            return True
        return not self.complete_between(anc, desc)[0]  # nothing of anc's history lacks from desc's

    def on_branch(self, sha: str, branch: str, tip: str | None = None) -> bool:
        """Whether ``sha`` (already here) is reachable from the remote's ``branch`` as it is now
        (``tip``: as the remote listed it a moment ago; see ``fetch_branch``)."""
        return self.is_ancestor(sha, self.fetch_branch(branch, tip))

    def log(self, old: str | None, new: str) -> list[LogEntry]:
        """Commits in ``old..new``, newest first (the full range, deepening as needed)."""
        self.complete_between(new, old)
        fmt = "%H%x00%cI%x00%an%x00%s%x00"
        args = ["rev-list", "--missing=allow-promisor", "--no-commit-header", f"--format={fmt}", new]
        out = self._run(*args + ([f"^{old}"] if old else []))[1]
        fields = out.split("\x00")
        entries = []
        for i in range(0, len(fields) - 4, 4):
            sha, date, author, subject = (f.strip("\n") for f in fields[i:i + 4])
            entries.append(LogEntry(sha, date, author, subject))
        return entries

    def first_parents(self, old: str, new: str, limit: int | None = None) -> list[str]:
        """The first-parent line of ``new`` back to (not including) ``old``, newest first.

        What a branch's own history is (merged side branches are one step): the commits a
        bisect probes and a green roll walks. ``limit`` caps the count (from the tip).
        """
        self.complete(new, old)
        args = ["rev-list", "--missing=allow-promisor", "--first-parent", new, f"^{old}"]
        args += [f"--max-count={limit}"] if limit is not None else []
        return self._run(*args)[1].split()

    def first_parent(self, sha: str) -> str | None:
        """The first parent of a commit that is here (None for a root commit)."""
        status, out, _ = self._run("rev-parse", "--verify", "--quiet", f"{sha}^1", check=False)
        if status != 0:
            self._fetch("--deepen=1", "origin", sha, filter=HISTORY_FILTER)
            status, out, _ = self._run("rev-parse", "--verify", "--quiet", f"{sha}^1", check=False)
        return out.strip() if status == 0 else None
