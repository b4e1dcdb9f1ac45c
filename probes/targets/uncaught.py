"""Dies with an uncaught exception (exit status 1)."""
raise RuntimeError("boom from probe")
