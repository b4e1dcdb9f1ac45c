"""Package runnable with "python3 -m pkg_main"."""
