"""The console's panes: each renders an engine snapshot."""
