"""portald, built from this tree, serving HTTPS on a free port with a throwaway store, for the ArcGIS API for Python.

Each deployment the client must work against is one session-wide portald: self-hosted with the context /portal,
self-hosted without a context (the client then reads //sharing/rest/), and ArcGIS Online. Every test starts from
the demo organization (POST /emulator/reset). PORTALD_BIN names a built portald (make test-python-official builds
one); without it the tests build their own with go build.
"""

import os
import pathlib
import re
import subprocess
import threading
import urllib.parse

import pytest
import requests

REPO = pathlib.Path(__file__).resolve().parents[4]
LISTENING = re.compile(r"API at (https://\S+)/sharing/rest\b")
CERTIFIED = re.compile(r"HTTPS certificate (\S+) \(")

DEPLOYMENTS = {
    "context": (["-context", "/portal"], "ArcGIS Enterprise"),
    "no-context": ([], "ArcGIS Enterprise"),
    "online": (["-deployment", "online"], "ArcGIS Online"),
}


@pytest.fixture(scope="session")
def portald_bin(tmp_path_factory):
    if os.environ.get("PORTALD_BIN"):
        return os.environ["PORTALD_BIN"]
    out = tmp_path_factory.mktemp("bin") / "portald"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/portald"], cwd=REPO, check=True)
    return str(out)


class Portal:
    """One running portald: root is what a user passes to GIS(), cert the certificate it wrote."""

    def __init__(self, name, root, cert, portal_name):
        self.name, self.root, self.cert, self.portal_name = name, root, cert, portal_name
        u = urllib.parse.urlsplit(root)
        self.origin = f"{u.scheme}://{u.netloc}"
        self.online = portal_name == "ArcGIS Online"

    def gis(self, *args, **kwargs):
        """GIS(root, ...) trusting portald's certificate through the client's own ca_bundles."""
        from arcgis.gis import GIS

        return GIS(self.root, *args, ca_bundles=self.cert, **kwargs)

    def emulator(self, method, path, **kwargs):
        r = requests.request(method, f"{self.origin}/emulator/{path}", verify=self.cert, timeout=30, **kwargs)
        r.raise_for_status()
        return r.json()

    def journal(self, since=0):
        """The API calls portald recorded after the one numbered since."""
        return [r for r in self.emulator("GET", "requests")["requests"] if r["seq"] > since]

    def last_seq(self):
        calls = self.emulator("GET", "requests")["requests"]
        return calls[-1]["seq"] if calls else 0

    def api(self, method, path, token, referer=None, **kwargs):
        """A call of the API itself, beside the client, to read back what the client did."""
        headers = {"X-Esri-Authorization": f"Bearer {token}"}
        if referer is not None:
            headers["Referer"] = referer  # a token generateToken bound to a referer needs it
        r = requests.request(method, f"{self.root}/sharing/rest/{path}", verify=self.cert, timeout=30,
                             headers=headers, **kwargs)
        return r.json()


@pytest.fixture(scope="session", params=list(DEPLOYMENTS))
def portal(request, portald_bin, tmp_path_factory):
    args, portal_name = DEPLOYMENTS[request.param]
    d = tmp_path_factory.mktemp(request.param)
    stderr = open(d / "stderr.log", "w+")
    proc = subprocess.Popen(
        [portald_bin, "-addr", "127.0.0.1:0", "-log-level", "warn", "-db", ":memory:",
         "-tls", "-tls-cert", str(d / "cert.pem"), "-tls-key", str(d / "key.pem"), *args],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    # A portald that neither starts nor exits is killed after a minute, which ends the read below.
    timer = threading.Timer(60, proc.kill)
    timer.start()
    line = ""
    for line in proc.stdout:
        if LISTENING.search(line):
            break
    timer.cancel()
    m, c = LISTENING.search(line), CERTIFIED.search(line)
    if not (m and c):
        proc.kill()
        proc.wait()
        stderr.seek(0)
        pytest.fail(f"portald did not start: {line!r}\n{stderr.read()}")
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    yield Portal(request.param, m[1], c[1], portal_name)
    proc.terminate()
    proc.wait(timeout=30)
    stderr.close()


@pytest.fixture(autouse=True)
def demo(portal):
    """Every test starts from the demo organization."""
    assert portal.emulator("POST", "reset") == {"success": True}
    return portal


def pytest_sessionfinish(session, exitstatus):
    """make test counts no skipped test as a pass: a run with a skip fails."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if exitstatus == 0 and reporter is not None and reporter.stats.get("skipped"):
        session.exitstatus = 1
