"""The rules and file formats every stage uses: versions, names, config, the revision map, the
manifest, checksums, secrets, printing, and reading and writing wheels. No network, no subprocess."""
