#!/usr/bin/env python3
"""Write the portald wheel of one platform: the package in portald/ plus the portald binary.

    build_wheel.py --binary dist/portald --platform linux-amd64 --version v1.2.3 --out build/packages/python

No build backend and no network: a wheel is a zip with METADATA, WHEEL, entry_points.txt and RECORD
(PEP 427, PEP 491), and the repository's LICENSE in .dist-info/licenses/ (core metadata 2.4, PEP 639),
written here with the standard library, byte for byte the same for the same inputs (entries sorted,
timestamps from SOURCE_DATE_EPOCH or 1980). --version takes the git-describe version of mk/release.mk and
writes it as PEP 440, meaning what packages/npm/pack.mjs writes for npm (pep440 below).
"""

import argparse
import base64
import hashlib
import io
import os
import re
import sys
import time
import zipfile

NAME = "portald"
SUMMARY = "The organization portal emulator (portald) with a pytest plugin"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# SPDX, as openapi.yaml's info.license and the npm packages say.
LICENSE_EXPRESSION = "Apache-2.0"
# Where the project lives: Project-URL, with labels of the well-known set that pip and PyPI recognize.
PROJECT_URL = "https://github.com/orgportal/portal-api"
PROJECT_URLS = [("Homepage", PROJECT_URL), ("Source", PROJECT_URL), ("Issues", PROJECT_URL + "/issues")]

# Go's static binaries need no particular libc: one wheel serves glibc and musl. Go 1.26 runs on
# macOS 12 and later.
PLATFORMS = {
    "linux-amd64": ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"],
    "linux-arm64": ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"],
    "darwin-amd64": ["macosx_12_0_x86_64"],
    "darwin-arm64": ["macosx_12_0_arm64"],
    "windows-amd64": ["win_amd64"],
}


# git describe --tags --always --dirty (mk/release.mk): a tag vMAJOR.MINOR.PATCH, maybe a pre-release
# (v1.3.0-rc.1), then -N-gHASH when N commits follow it, then -dirty when the tree has changes. The same
# grammar as packages/npm/pack.mjs's.
DESCRIBE = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:-(alpha|beta|rc|a|b)\.?(\d+))?(?:-(\d+)-g([0-9a-f]+))?")
PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc"}


def pep440(version: str) -> str:
    """git describe's version as PEP 440, meaning what pack.mjs's semver() means on npm (the cases of
    packages/version_cases.json):

    - a tag: that release, v1.2.3 -> 1.2.3, v1.3.0-rc.1 -> 1.3.0rc1;
    - after a release tag (commits, or a changed tree): a development release of the next patch, before
      it, v1.2.3-4-gabc1234 -> 1.2.4.dev4+gabc1234 (npm 1.2.4-dev.4.gabc1234), v1.2.3-dirty ->
      1.2.4.dev0+dirty;
    - after a pre-release tag: after it and still before the release, v1.3.0-rc.1-4-gabc1234 ->
      1.3.0rc1.post4+gabc1234 (npm 1.3.0-rc.1.dev.4.gabc1234);
    - no tag: no release, 0.0.0 with the commit, abc1234 -> 0.0.0+gabc1234, abc1234-dirty ->
      0.0.0+gabc1234.dirty, dev -> 0.0.0+dev.

    The commit and -dirty go in the local version label (+...), as they always have: they name the build,
    its place among releases is before the +."""
    v = version.strip()
    dirty = v.endswith("-dirty")
    if dirty:
        v = v[: -len("-dirty")]
    local = []
    m = DESCRIBE.fullmatch(v)
    if m:
        major, minor, patch, pre, pre_n, ahead, sha = m.groups()
        major, minor, patch = int(major), int(minor), int(patch)
        after = ahead is not None or dirty
        if pre:
            out = f"{major}.{minor}.{patch}{PRE[pre]}{int(pre_n)}"
            if after:
                out += f".post{int(ahead or 0)}"
        elif after:
            out = f"{major}.{minor}.{patch + 1}.dev{int(ahead or 0)}"
        else:
            out = f"{major}.{minor}.{patch}"
        if sha:
            local.append("g" + sha)
    elif re.fullmatch(r"[0-9a-f]{4,40}", v):
        out = "0.0.0"
        local.append("g" + v)
    else:
        out = "0.0.0"
        local.append(re.sub(r"[^A-Za-z0-9]+", ".", v).strip(".") or "unknown")
    if dirty:
        local.append("dirty")
    return out + ("+" + ".".join(local) if local else "")


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def package_files():
    """(archive name, bytes) of the Python package, sorted."""
    root = os.path.join(HERE, NAME)
    out = []
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            with open(os.path.join(root, name), "rb") as f:
                out.append((f"{NAME}/{name}", f.read()))
    return out


def metadata(version: str) -> bytes:
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    # 2.4: License-Expression and License-File (PEP 639), which replace License (the two may not be
    # given together).
    head = (
        "Metadata-Version: 2.4\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        f"License-Expression: {LICENSE_EXPRESSION}\n"
        "License-File: LICENSE\n"
        "Requires-Python: >=3.9\n"
        "Classifier: Framework :: Pytest\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Topic :: Software Development :: Testing\n"
        "Description-Content-Type: text/markdown\n"
    )
    head += "".join(f"Project-URL: {label}, {url}\n" for label, url in PROJECT_URLS)
    return (head + "\n" + readme).encode()


def build(binary: str, platform: str, version: str, out_dir: str) -> str:
    tags = PLATFORMS[platform]
    version = pep440(version)
    exe = "portald.exe" if platform.startswith("windows") else "portald"
    distinfo = f"{NAME}-{version}.dist-info"
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    date = time.gmtime(max(epoch, 315532800))[:6]

    with open(binary, "rb") as f:
        exe_bytes = f.read()
    with open(os.path.join(REPO, "LICENSE"), "rb") as f:
        license_bytes = f.read()
    files = package_files() + [(f"{NAME}/bin/{exe}", exe_bytes)]
    files.append((f"{distinfo}/METADATA", metadata(version)))
    files.append((f"{distinfo}/licenses/LICENSE", license_bytes))
    wheel = "Wheel-Version: 1.0\nGenerator: portald build_wheel.py\nRoot-Is-Purelib: false\n"
    wheel += "".join(f"Tag: py3-none-{t}\n" for t in tags)
    files.append((f"{distinfo}/WHEEL", wheel.encode()))
    entry_points = "[console_scripts]\nportald = portald.__main__:main\n\n[pytest11]\nportald = portald.pytest_plugin\n"
    files.append((f"{distinfo}/entry_points.txt", entry_points.encode()))
    files.append((f"{distinfo}/top_level.txt", b"portald\n"))
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in files) + f"{distinfo}/RECORD,,\n"
    files.append((f"{distinfo}/RECORD", record.encode()))

    filename = f"{NAME}-{version}-py3-none-{'.'.join(tags)}.whl"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, filename)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=date)
            info.compress_type = zipfile.ZIP_DEFLATED
            # Unix mode bits: pip keeps the binary executable.
            mode = 0o755 if name.endswith("/" + exe) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3
            z.writestr(info, data)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", help="the portald binary of that platform")
    ap.add_argument("--platform", choices=sorted(PLATFORMS))
    ap.add_argument("--version", default="dev", help="git describe version (BUILD_VERSION)")
    ap.add_argument("--out", default=".")
    ap.add_argument("--print-version", action="store_true", help="print the PEP 440 version and exit")
    a = ap.parse_args(argv)
    if a.print_version:
        print(pep440(a.version))
        return 0
    if not a.binary or not a.platform:
        ap.error("--binary and --platform are required")
    print(build(a.binary, a.platform, a.version, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
