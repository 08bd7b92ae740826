"""The JSON Schema of an in-toto v1 Statement carrying a SLSA provenance v1 predicate.

Written from the specifications, so a provenance file is checked against what the specs
require, not against what our writer happens to produce:
in-toto Attestation Framework v1 (Statement, ResourceDescriptor, DigestSet) and SLSA
Provenance v1.0 (BuildDefinition, RunDetails, Builder, BuildMetadata). Unknown fields are
allowed, as both specs tell consumers to ignore them (SLSA extension fields are spelled
``<vendor>_<name>``).
"""

from __future__ import annotations

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://slsa.dev/provenance/v1"

# An absolute URI (RFC 3986: scheme ":" rest); in-toto's TypeURI and ResourceURI.
_URI = {"type": "string", "pattern": r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$"}
# RFC 3339 timestamps, as SLSA's startedOn/finishedOn.
_TIMESTAMP = {"type": "string",
              "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"}
_HEX = {"type": "string", "pattern": "^[0-9a-f]+$"}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "in-toto v1 Statement with a SLSA provenance v1 predicate",
    "type": "object",
    "required": ["_type", "subject", "predicateType", "predicate"],
    "properties": {
        "_type": {"const": STATEMENT_TYPE},
        # Statement: "subject ... MUST be non-empty"; each subject MUST carry a digest.
        "subject": {"type": "array", "minItems": 1,
                    "items": {"allOf": [{"$ref": "#/$defs/ResourceDescriptor"},
                                        {"required": ["digest"]}]}},
        "predicateType": {"const": PREDICATE_TYPE},
        "predicate": {"$ref": "#/$defs/Provenance"},
    },
    "$defs": {
        # DigestSet: algorithm -> lowercase hex; the well-known names have fixed lengths.
        "DigestSet": {
            "type": "object", "minProperties": 1,
            "additionalProperties": {"type": "string", "minLength": 1},
            "properties": {
                "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                "sha384": {"type": "string", "pattern": "^[0-9a-f]{96}$"},
                "sha512": {"type": "string", "pattern": "^[0-9a-f]{128}$"},
                "sha1": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                "gitCommit": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"},
                "gitTree": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"},
                "gitBlob": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"},
                "gitTag": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"},
                "dirHash": _HEX,
            },
        },
        # ResourceDescriptor: "at least one of uri, digest, content" is required.
        "ResourceDescriptor": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "uri": _URI,
                "digest": {"$ref": "#/$defs/DigestSet"},
                "content": {"type": "string", "contentEncoding": "base64"},
                "downloadLocation": _URI,
                "mediaType": {"type": "string"},
                "annotations": {"type": "object"},
            },
            "anyOf": [{"required": ["uri"]}, {"required": ["digest"]}, {"required": ["content"]}],
        },
        "Provenance": {
            "type": "object",
            "required": ["buildDefinition", "runDetails"],
            "properties": {
                "buildDefinition": {
                    "type": "object",
                    "required": ["buildType", "externalParameters"],
                    "properties": {
                        "buildType": _URI,
                        "externalParameters": {"type": "object"},
                        "internalParameters": {"type": "object"},
                        "resolvedDependencies": {"type": "array",
                                                 "items": {"$ref": "#/$defs/ResourceDescriptor"}},
                    },
                },
                "runDetails": {
                    "type": "object",
                    "required": ["builder"],
                    "properties": {
                        "builder": {
                            "type": "object",
                            "required": ["id"],
                            "properties": {
                                "id": _URI,
                                "builderDependencies": {
                                    "type": "array", "items": {"$ref": "#/$defs/ResourceDescriptor"}},
                                "version": {"type": "object",
                                            "additionalProperties": {"type": "string"}},
                            },
                        },
                        "metadata": {
                            "type": "object",
                            "properties": {
                                "invocationId": {"type": "string"},
                                "startedOn": _TIMESTAMP,
                                "finishedOn": _TIMESTAMP,
                            },
                        },
                        "byproducts": {"type": "array",
                                       "items": {"$ref": "#/$defs/ResourceDescriptor"}},
                    },
                },
            },
        },
    },
}
