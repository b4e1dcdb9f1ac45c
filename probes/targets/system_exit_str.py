"""sys.exit() with a string: printed to stderr, exit status 1."""
import sys

sys.exit("fatal: bad config")
