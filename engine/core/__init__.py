"""Core records every layer shares: jobs, policies, errors, registries, seeds, TOML tables
and bundled files."""
