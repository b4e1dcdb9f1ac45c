"""Packs an installed importscope tree into a wheel (tools/wheel/build.sh).

Usage: pack.py STAGE PLATFORM OUT_DIR

STAGE is what `cmake --install --prefix STAGE` laid out (bin/, lib/importscope/, share/importscope/).
It goes into the wheel's data directory, which pip installs at the environment's prefix, as
scikit-build-core lays out `pip install .`: <env>/bin/importscope beside <env>/lib/importscope/.
The tag is py3-none-PLATFORM: the supervisor links no libpython and the wheel holds a worker for
every supported CPython minor. Name, version and summary come from pyproject.toml. Entries are
sorted and dated from SOURCE_DATE_EPOCH (default: 2000-01-01), so the same tree gives the same bytes.
"""
import base64
import hashlib
import os
import sys
import time
import tomllib
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def project_metadata():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        "License-File: LICENSE",
    ]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    with open(os.path.join(ROOT, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    lines.append("Description-Content-Type: text/markdown")
    return project["name"], project["version"], "\n".join(lines) + "\n\n" + readme


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


class WheelWriter:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9)
        epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "946684800"))
        self.date_time = max((1980, 1, 1, 0, 0, 0), tuple(time.gmtime(epoch)[:6]))
        self.records = []

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, date_time=self.date_time)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append(record_line(name, data))

    def close(self, record_name):
        text = "\n".join(self.records + [f"{record_name},,"]) + "\n"
        info = zipfile.ZipInfo(record_name, date_time=self.date_time)
        info.external_attr = 0o100644 << 16
        self.zip.writestr(info, text, compress_type=zipfile.ZIP_DEFLATED)
        self.zip.close()


def staged_files(stage):
    for directory, dirs, files in os.walk(stage):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(directory, name)
            yield os.path.relpath(path, stage).replace(os.sep, "/"), path


def main(stage, platform, out_dir):
    name, version, metadata = project_metadata()
    dist = name.replace("-", "_")
    tag = f"py3-none-{platform}"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{dist}-{version}-{tag}.whl")
    wheel = WheelWriter(path + ".partial")
    data_dir = f"{dist}-{version}.data/data"
    for relative, source in staged_files(stage):
        with open(source, "rb") as f:
            content = f.read()
        executable = os.stat(source).st_mode & 0o111
        wheel.add(f"{data_dir}/{relative}", content, 0o755 if executable else 0o644)
    info_dir = f"{dist}-{version}.dist-info"
    wheel.add(f"{info_dir}/METADATA", metadata.encode())
    wheel.add(f"{info_dir}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: importscope tools/wheel/pack.py\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode())
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        wheel.add(f"{info_dir}/LICENSE", f.read())
    wheel.close(f"{info_dir}/RECORD")
    os.replace(path + ".partial", path)
    print(path)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
