"""Helper package; its directory is also (wrongly) put on sys.path."""
