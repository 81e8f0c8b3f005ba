#!/usr/bin/env python3
"""Checks what make release-check built before a release attaches it: each wheel's RECORD against its
files, its tags against its name, the binary inside for the platform its tags name (ELF, Mach-O or PE
machine), executable; each npm tarball's os/cpu against its binary, and the main package's
optionalDependencies naming all five at its own version. Every wheel and tarball carries the repository's
LICENSE, byte for byte, and says Apache-2.0 (a wheel in License-Expression and License-File, core metadata
2.4); and names where the project lives, the repository of go.mod's module path and its issue tracker (a
wheel in Project-URL; a package.json in homepage, repository, with the main package's directory, and bugs).
Exits non-zero on the first wrong thing.

    check_artifacts.py build/packages/python build/packages/npm
    check_artifacts.py --partial build/packages/python     # make test-wheel, test-npm: the host's only

--partial checks what the directories hold, however many: the host's wheel, or the main package with the
host's platform package, whose optionalDependencies then include the platform packages packed.
"""

import base64
import csv
import email.parser
import glob
import hashlib
import io
import json
import os
import struct
import sys
import tarfile
import zipfile

# (os, arch) -> what the binary's header says.
ELF = {0x3E: "x86_64", 0xB7: "aarch64"}
MACHO = {0x01000007: "x86_64", 0x0100000C: "arm64"}
PE = {0x8664: "amd64", 0xAA64: "arm64"}

WHEEL_PLATFORMS = {
    "manylinux_2_17_x86_64": ("linux", "x86_64"),
    "manylinux_2_17_aarch64": ("linux", "aarch64"),
    "macosx_12_0_x86_64": ("darwin", "x86_64"),
    "macosx_12_0_arm64": ("darwin", "arm64"),
    "win_amd64": ("windows", "amd64"),
}
NPM_PLATFORMS = {
    ("linux", "x64"): ("linux", "x86_64"),
    ("linux", "arm64"): ("linux", "aarch64"),
    ("darwin", "x64"): ("darwin", "x86_64"),
    ("darwin", "arm64"): ("darwin", "arm64"),
    ("win32", "x64"): ("windows", "amd64"),
}


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LICENSE_EXPRESSION = "Apache-2.0"
# The main npm package's files, in the repository.
NPM_MAIN_DIR = "packages/npm/portald"


def project_url() -> str:
    """https://github.com/OWNER/NAME, from go.mod's module path."""
    with open(os.path.join(ROOT, "go.mod"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("module "):
                return "https://" + line.split()[1]
    fail("go.mod names no module")


def repo_license() -> bytes:
    """The repository's LICENSE, which every wheel and tarball must carry unchanged."""
    try:
        with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
            return f.read()
    except OSError as e:
        fail(f"the repository has no LICENSE to compare with: {e}")


def binary_kind(data: bytes):
    """(os, arch) of an executable's header."""
    if data[:4] == b"\x7fELF":
        return "linux", ELF.get(struct.unpack_from("<H", data, 18)[0], "?")
    if data[:4] == b"\xcf\xfa\xed\xfe":
        return "darwin", MACHO.get(struct.unpack_from("<I", data, 4)[0], "?")
    if data[:2] == b"MZ":
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        if data[pe : pe + 4] == b"PE\0\0":
            return "windows", PE.get(struct.unpack_from("<H", data, pe + 4)[0], "?")
    return "?", "?"


def fail(msg: str):
    print(f"check_artifacts: {msg}", file=sys.stderr)
    sys.exit(1)


def check_wheel(path: str) -> str:
    name = os.path.basename(path)
    parts = name[: -len(".whl")].split("-")
    if len(parts) != 5 or parts[0] != "portald" or parts[2:4] != ["py3", "none"]:
        fail(f"{name}: not portald-VERSION-py3-none-PLATFORM.whl")
    version, platforms = parts[1], parts[4].split(".")
    with zipfile.ZipFile(path) as z:
        distinfo = f"portald-{version}.dist-info"
        record = list(csv.reader(io.StringIO(z.read(f"{distinfo}/RECORD").decode())))
        listed = {row[0] for row in record}
        if listed != set(z.namelist()):
            fail(f"{name}: RECORD lists {sorted(listed ^ set(z.namelist()))} differently from the archive")
        for file, digest, size in record:
            if file.endswith("/RECORD"):
                continue
            data = z.read(file)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if digest != want or int(size) != len(data):
                fail(f"{name}: {file} does not match RECORD")
        tags = [l.split(": ", 1)[1] for l in z.read(f"{distinfo}/WHEEL").decode().splitlines() if l.startswith("Tag: ")]
        if sorted(tags) != sorted(f"py3-none-{p}" for p in platforms):
            fail(f"{name}: WHEEL tags {tags} differ from the file name's")
        if "[pytest11]" not in z.read(f"{distinfo}/entry_points.txt").decode():
            fail(f"{name}: no pytest11 entry point")
        # Core metadata 2.4 (PEP 639): License-Expression, not License; each License-File under
        # .dist-info/licenses/.
        meta = email.parser.BytesHeaderParser().parsebytes(z.read(f"{distinfo}/METADATA"))
        if tuple(int(x) for x in meta["Metadata-Version"].split(".")) < (2, 4):
            fail(f"{name}: Metadata-Version {meta['Metadata-Version']}, License-Expression needs 2.4")
        if meta["License-Expression"] != LICENSE_EXPRESSION or meta["License"] is not None:
            fail(f"{name}: License-Expression {meta['License-Expression']!r} and License {meta['License']!r}, "
                 f"want {LICENSE_EXPRESSION} and no License")
        url = project_url()
        want_urls = {"Homepage": url, "Source": url, "Issues": url + "/issues"}
        got_urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
        if got_urls != want_urls:
            fail(f"{name}: Project-URL {got_urls}, want {want_urls}")
        if meta.get_all("License-File") != ["LICENSE"]:
            fail(f"{name}: License-File {meta.get_all('License-File')}, want LICENSE")
        if f"{distinfo}/licenses/LICENSE" not in z.namelist():
            fail(f"{name}: no {distinfo}/licenses/LICENSE")
        if z.read(f"{distinfo}/licenses/LICENSE") != repo_license():
            fail(f"{name}: {distinfo}/licenses/LICENSE is not the repository's LICENSE")
        want = next(WHEEL_PLATFORMS[p] for p in platforms if p in WHEEL_PLATFORMS)
        exe = "portald/bin/portald.exe" if want[0] == "windows" else "portald/bin/portald"
        info = z.getinfo(exe)
        if want[0] != "windows" and not (info.external_attr >> 16) & 0o100:
            fail(f"{name}: {exe} is not executable")
        got = binary_kind(z.read(exe)[:4096])
        if got != want:
            fail(f"{name}: {exe} is for {got}, the tags say {want}")
    return f"{name}: {want[0]}/{want[1]}, RECORD and tags agree"


def check_npm(path: str, versions: dict) -> str:
    name = os.path.basename(path)
    with tarfile.open(path) as t:
        pkg = json.load(t.extractfile("package/package.json"))
        versions[pkg["name"]] = pkg["version"]
        if pkg.get("license") != LICENSE_EXPRESSION:
            fail(f"{name}: license {pkg.get('license')!r}, want {LICENSE_EXPRESSION}")
        url = project_url()
        repo = pkg.get("repository") or {}
        where = {"homepage": pkg.get("homepage"), "bugs": (pkg.get("bugs") or {}).get("url"),
                 "repository": (repo.get("type"), repo.get("url"), repo.get("directory"))}
        want = {"homepage": url, "bugs": url + "/issues",
                "repository": ("git", f"git+{url}.git", NPM_MAIN_DIR if pkg["name"] == "portald" else None)}
        if where != want:
            fail(f"{name}: {where}, want {want}")
        if pkg["name"] == "portald":
            with open(os.path.join(ROOT, NPM_MAIN_DIR, "package.json"), encoding="utf-8") as f:
                if json.load(f)["name"] != pkg["name"]:
                    fail(f"{name}: repository.directory {NPM_MAIN_DIR} holds another package")
        if "package/LICENSE" not in t.getnames():
            fail(f"{name}: no package/LICENSE")
        if t.extractfile("package/LICENSE").read() != repo_license():
            fail(f"{name}: package/LICENSE is not the repository's LICENSE")
        if pkg["name"] == "portald":
            files = set(t.getnames())
            for f in ("package/index.js", "package/index.d.ts", "package/emulator.gen.d.ts", "package/bin/portald.js"):
                if f not in files:
                    fail(f"{name}: {f} missing")
            return f"{name}: main package {pkg['version']}"
        key = (pkg["os"][0], pkg["cpu"][0])
        want = NPM_PLATFORMS[key]
        exe = "package/bin/portald.exe" if want[0] == "windows" else "package/bin/portald"
        member = t.getmember(exe)
        if want[0] != "windows" and not member.mode & 0o100:
            fail(f"{name}: {exe} is not executable")
        got = binary_kind(t.extractfile(member).read(4096))
        if got != want:
            fail(f"{name}: {exe} is for {got}, os/cpu say {want}")
        return f"{name}: {key[0]}/{key[1]} binary {want[0]}/{want[1]}"


def main(argv):
    partial = "--partial" in argv
    dirs = [a for a in argv if a != "--partial"]
    if not dirs or (not partial and len(dirs) != 2):
        fail("usage: check_artifacts.py PYTHON_DIR NPM_DIR, or check_artifacts.py --partial DIR...")
    wheels = sorted(w for d in dirs for w in glob.glob(os.path.join(d, "*.whl")))
    tarballs = sorted(t for d in dirs for t in glob.glob(os.path.join(d, "*.tgz")))
    if partial and not wheels and not tarballs:
        fail(f"no wheel and no npm tarball in {dirs}")
    if not partial and (len(wheels) != 5 or len(tarballs) != 6):
        fail(f"want 5 wheels and 6 npm tarballs, found {len(wheels)} and {len(tarballs)}")
    for w in wheels:
        print(check_wheel(w))
    versions = {}
    for t in tarballs:
        print(check_npm(t, versions))
    main_tgz = [t for t in tarballs if os.path.basename(t).startswith("portald-")]
    if main_tgz:
        with tarfile.open(main_tgz[0]) as t:
            optional = json.load(t.extractfile("package/package.json"))["optionalDependencies"]
        platform_versions = {k: v for k, v in versions.items() if k != "portald"}
        packed = {k: optional.get(k) for k in platform_versions} if partial else optional
        if packed != platform_versions or set(optional.values()) != {versions["portald"]}:
            fail(f"portald's optionalDependencies {optional} are not the packed platform packages {versions}")
    print(f"{len(wheels)} wheels and {len(tarballs)} npm tarballs checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
