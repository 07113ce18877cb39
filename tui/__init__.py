"""The Textual operator console; it renders engine snapshots and never drives the engine itself."""
