"""Modal screens of the console: forms that ask for values and views that show a report."""
