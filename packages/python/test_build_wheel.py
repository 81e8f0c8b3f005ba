"""build_wheel.py's PEP 440 versions: the cases of packages/version_cases.json, which packages/npm/pack.test.mjs
checks pack.mjs's semver versions against, so that a wheel and an npm package of one build mean the same
version. make test-wheel runs it with the virtualenv's pytest and packaging."""

import json
import os
import sys

import pytest
from packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from build_wheel import pep440  # noqa: E402

with open(os.path.join(os.path.dirname(HERE), "version_cases.json"), encoding="utf-8") as f:
    CASES = json.load(f)


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["describe"])
def test_pep440(case):
    got = pep440(case["describe"])
    assert got == case["pep440"]
    assert str(Version(got)) == got, "not in PEP 440's normal form"


def test_after_a_tag_is_before_the_next_patch():
    v = Version(pep440("v1.2.3-4-gabc1234"))
    assert Version("1.2.3") < v < Version("1.2.4") and v.is_prerelease
    assert Version("1.2.3") < Version(pep440("v1.2.3-dirty")) < Version("1.2.4")
    rc = Version(pep440("v1.3.0-rc.1-4-gabc1234"))
    assert Version("1.3.0rc1") < rc < Version("1.3.0rc2") and rc.is_prerelease


def test_ascending():
    versions = [Version(pep440(d)) for d in CASES["ascending"]]
    assert versions == sorted(versions) and len(set(versions)) == len(versions), list(map(str, versions))


def test_surrounding_space():
    assert pep440(" v1.2.3\n") == "1.2.3"
