"""pytest fixtures for portald, loaded through the pytest11 entry point.

    def test_move(fresh_portal):                      # state as at the session's start
        gis = GIS(fresh_portal.url, "jsmith", "jsmith-password", ca_bundles=fresh_portal.ca_bundle)
        ...
        assert fresh_portal.journal("moveItems")[0]["answer"]["success"]

    @pytest.mark.portal_fault("moveItems", error={"code": 498})
    def test_expired_token(fresh_portal): ...

`portal` is one portald for the whole session (per xdist worker); `fresh_portal` restores the snapshot taken
when it started, and clears fault rules, journal and clock offset, before each test, then adds the faults
of the test's portal_fault markers. Settings in pytest.ini / pyproject.toml ([tool.pytest.ini_options]):
portald_tls (HTTPS, default true: the portal's own clients speak nothing else), portald_seed (a seed file,
relative to the rootdir), portald_args (more flags). --portald-bin (or PORTALD_BIN) runs another binary.
"""

from __future__ import annotations

import os

import pytest

from . import Portal

# The snapshot fresh_portal goes back to; take it again (portal.snapshot(BASELINE)) to make
# session-wide setup part of every test's start.
BASELINE = "pytest-baseline"


def pytest_addoption(parser):
    group = parser.getgroup("portald", "portal emulator")
    group.addoption("--portald-bin", default=None, help="portald binary to run instead of the wheel's")
    parser.addini("portald_tls", type="bool", default=True, help="serve HTTPS (default true)")
    parser.addini("portald_seed", default="", help="seed file instead of the demo organizations (relative to rootdir)")
    parser.addini("portald_args", type="args", default=[], help="more portald flags, e.g. -version 11.0")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "portal_fault(operation, **rule): a fault rule of the emulator (emulator.yaml's Fault) "
        "added by the fresh_portal fixture before the test",
    )


@pytest.fixture(scope="session")
def portal(pytestconfig) -> Portal:
    """One portald for the session, started on a free port with an in-memory store."""
    seed = pytestconfig.getini("portald_seed") or None
    if seed and not os.path.isabs(seed):
        seed = os.path.join(str(pytestconfig.rootpath), seed)
    p = Portal(
        tls=pytestconfig.getini("portald_tls"),
        seed=seed,
        args=pytestconfig.getini("portald_args"),
        binary=pytestconfig.getoption("portald_bin"),
    )
    p.start()
    try:
        p.snapshot(BASELINE)
        yield p
    finally:
        p.stop()


@pytest.fixture
def fresh_portal(portal: Portal, request) -> Portal:
    """The session's portald as it was when it started, with the test's portal_fault rules."""
    portal.fresh(BASELINE)
    # In the order written, top to bottom: pytest lists a function's markers bottom-up, then its class's.
    for m in reversed(list(request.node.iter_markers("portal_fault"))):
        portal.add_fault(*m.args, **m.kwargs)
    return portal
