"""Fails unless `auditwheel show` found a wheel installable under the manylinux tag it carries.

Usage: check_tag.py AUDITWHEEL_SHOW_OUTPUT TAG     (TAG: manylinux_2_28_x86_64, say)

auditwheel names the most widely installable tag that the wheel's files allow ("consistent with the
following platform tag"); the wheel is right when that tag is the one it carries or an older glibc's
of the same architecture, which means no file needs a glibc symbol newer than the tag's.
"""
import re
import sys


def parse(tag):
    match = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
    if not match:
        sys.exit(f"check_tag: {tag} is no manylinux_X_Y_ARCH tag")
    return int(match[1]), int(match[2]), match[3]


def main(show_output, carried):
    text = open(show_output).read()
    found = re.search(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"([^"]+)"', text)
    if not found:
        sys.exit(f"check_tag: auditwheel found no manylinux tag for the wheel:\n{text}")
    allowed = found[1]
    if allowed.startswith("manylinux2014_"):
        allowed = "manylinux_2_17_" + allowed[len("manylinux2014_"):]
    *allowed_glibc, allowed_arch = parse(allowed)
    *carried_glibc, carried_arch = parse(carried)
    if allowed_arch != carried_arch or tuple(allowed_glibc) > tuple(carried_glibc):
        sys.exit(f"check_tag: the wheel is tagged {carried}, but auditwheel allows only {found[1]}:\n{text}")
    print(f"check_tag: auditwheel allows {found[1]}: the {carried} wheel holds")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
