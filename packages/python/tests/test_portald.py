"""The package against the binary of its wheel, with the standard library only: what the fixtures and
the API promise, call by call."""

import datetime
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zipfile

import pytest

import portald
from portald import Portal, PortalError

HERE = os.path.dirname(os.path.abspath(__file__))


def rest(p: Portal, path: str, token: str, **form) -> dict:
    """A portal API call over a new connection (the client under test, in a real suite): a POST
    with a form, or a GET when there is none."""
    u = urllib.parse.urlsplit(p.rest_url)
    conn = (
        http.client.HTTPSConnection(u.netloc, context=ssl.create_default_context(cafile=p.ca_bundle))
        if u.scheme == "https"
        else http.client.HTTPConnection(u.netloc)
    )
    body = urllib.parse.urlencode(dict(form, f="json", token=token))
    if form:
        conn.request("POST", u.path + path, body, {"Content-Type": "application/x-www-form-urlencoded"})
    else:
        conn.request("GET", u.path + path + "?" + body)
    doc = json.loads(conn.getresponse().read())
    conn.close()
    return doc


def folder_of(p: Portal, item: str) -> str:
    return rest(p, f"/content/items/{item}", portald.MEMBER_TOKEN).get("ownerFolder") or "/"


def test_the_wheel_runs_its_own_binary():
    # make test-wheel installs the wheel without PORTALD_BIN: the binary comes from the package.
    assert "PORTALD_BIN" not in os.environ
    path = portald.binary_path()
    assert path.startswith(os.path.dirname(portald.__file__))
    assert os.access(path, os.X_OK)


def test_session_portal_is_https_with_its_certificate(portal):
    assert portal.url.startswith("https://127.0.0.1:") and portal.rest_url == portal.url + "/sharing/rest"
    assert portal.ca_bundle and os.path.isfile(portal.ca_bundle)
    assert portal.tokens["admin"] == portal.ADMIN_TOKEN and portal.users["jsmith"] == ("jsmith-password", "demo-user-token")
    assert rest(portal, "/portals/self", portal.ADMIN_TOKEN)["id"] == portal.ORG_ID


def test_a_test_moves_roads(fresh_portal):
    res = rest(fresh_portal, "/content/users/jsmith/moveItems", portald.MEMBER_TOKEN, items=portald.ROADS, folder=portald.ARCHIVE)
    assert res["results"][0]["success"], res
    assert folder_of(fresh_portal, portald.ROADS) == portald.ARCHIVE
    fresh_portal.add_fault("moveItems", error={"code": 498})
    fresh_portal.advance_clock("2h")


def test_the_next_test_starts_fresh(fresh_portal):
    # Runs after test_a_test_moves_roads (file order): its move, fault, journal and clock are gone.
    assert fresh_portal.faults() == []
    assert fresh_portal.clock()["offset"] == "0s"
    assert folder_of(fresh_portal, portald.ROADS) == "/"
    assert [r["operation"] for r in fresh_portal.journal()] == ["getItem"]


@pytest.mark.portal_fault("moveItems", itemErrors={portald.ROADS: {"code": 500, "message": "Item already exists in target folder"}})
@pytest.mark.portal_fault("updateSettings", error={"code": 498}, times=0)
def test_marker_faults(fresh_portal):
    assert [f["operation"] for f in fresh_portal.faults()] == ["moveItems", "updateSettings"]
    res = rest(fresh_portal, "/content/users/jsmith/moveItems", portald.MEMBER_TOKEN,
               items=f"{portald.ROADS},{portald.HYDRANTS}", folder=portald.ARCHIVE)
    by_id = {r["itemId"]: r for r in res["results"]}
    assert not by_id[portald.ROADS]["success"] and by_id[portald.HYDRANTS]["success"]
    [call] = fresh_portal.journal("moveItems")
    assert call["fault"] == fresh_portal.faults()[0]["id"] and call["answer"]["failedItems"] == 1
    assert call["params"]["items"] == [portald.ROADS, portald.HYDRANTS] and call["caller"] == "jsmith"
    assert rest(fresh_portal, "/portals/self/settings/update", portald.ADMIN_TOKEN, informationalBanner="{}")["error"]["code"] == 498


def test_snapshots_faults_clock_organizations(fresh_portal):
    p = fresh_portal
    p.snapshot("before")
    assert "before" in [s["name"] for s in p.snapshots()]
    rest(p, "/content/users/jsmith/moveItems", portald.MEMBER_TOKEN, items=portald.ROADS, folder=portald.PROJECTS)
    assert folder_of(p, portald.ROADS) == portald.PROJECTS
    p.restore("before")
    assert folder_of(p, portald.ROADS) == "/"
    p.delete_snapshot("before")
    with pytest.raises(PortalError) as e:
        p.restore("before")
    assert e.value.status == 404

    f = p.add_fault("getItem", status=429, headers={"Retry-After": "3"}, delay=datetime.timedelta(milliseconds=1))
    assert f["id"] and f["remaining"] == 1 and [x["id"] for x in p.faults()] == [f["id"]]
    p.remove_fault(f)
    assert p.faults() == []
    p.add_fault("getItem", error={"code": 400})
    p.clear_faults()
    assert p.faults() == []
    with pytest.raises(PortalError) as e:
        p.add_fault("noSuchOperation", error={"code": 400})
    assert e.value.status == 400

    before = datetime.datetime.fromisoformat(p.clock()["now"].replace("Z", "+00:00"))
    after = datetime.datetime.fromisoformat(p.advance_clock(datetime.timedelta(hours=25))["now"].replace("Z", "+00:00"))
    assert after - before >= datetime.timedelta(hours=25)
    assert p.set_clock(datetime.datetime(2030, 1, 2, 3, 4, 5))["now"].startswith("2030-01-02T03:04:05")
    assert p.reset_clock()["offset"] == "0s"

    org = {"id": "AAAABBBBCCCCDDDD", "name": "Tests", "users": [
        {"username": "tester", "password": "tester-password", "role": "org_admin", "tokens": ["tester-token"]}]}
    assert p.add_organization(org) == "AAAABBBBCCCCDDDD"
    assert rest(p, "/portals/self", "tester-token")["id"] == "AAAABBBBCCCCDDDD"
    with pytest.raises(PortalError) as e:
        p.add_organization(org)
    assert e.value.status == 409
    p.remove_organization("AAAABBBBCCCCDDDD")
    assert rest(p, "/portals/self", "tester-token")["error"]["code"] == 498

    p.reset()
    assert p.journal() == [] and p.journal(unmatched=True) == []
    rest(p, "/no/such/path", portald.ADMIN_TOKEN)
    assert [r["path"] for r in p.journal(unmatched=True)] == ["/sharing/rest/no/such/path"]
    p.clear_journal()
    assert p.journal() == []


def test_http_portal_with_a_seed_of_its_own(tmp_path):
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"organizations": [{"id": "1111222233334444", "name": "Own", "users": [
        {"username": "own", "password": "own-password", "role": "org_admin", "tokens": ["own-token"]}]}]}))
    with Portal(seed=seed) as p:
        assert p.url.startswith("http://127.0.0.1:") and p.ca_bundle is None and p.tokens == {}
        assert rest(p, "/portals/self", "own-token")["id"] == "1111222233334444"
        assert rest(p, "/portals/self", portald.ADMIN_TOKEN)["error"]["code"] == 498
        proc = p._proc
    assert proc.poll() is not None, "portald still running after the with block"


def test_a_broken_seed_stops_start_up_with_the_reason(tmp_path):
    seed = tmp_path / "seed.yaml"
    seed.write_text("organizations: [{id: x}]\n")
    # The reason is portald's own, read from its log before the log is removed.
    with pytest.raises(RuntimeError, match=r"portald did not start \(exit 1\):.*organizations\[0\]"):
        Portal(seed=seed).start()


def test_a_binary_that_cannot_run_leaves_no_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(FileNotFoundError):
        Portal(binary=str(tmp_path / "no-such-portald")).start()
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_portald_ends_with_the_process_that_started_it(tmp_path):
    # A process that starts a portal and is then killed outright (as by a CI timeout) stops() nothing;
    # portald, whose standard input was that process's pipe, ends on its own.
    script = tmp_path / "killed.py"
    script.write_text(
        "import os, signal, portald\n"
        "p = portald.Portal().start()\n"
        "print(p._proc.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    # Its temporary directory, which nothing can remove once it is killed, goes under tmp_path.
    env = dict(os.environ, TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == -9, out
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 30
    while _alive(pid):
        assert time.monotonic() < deadline, f"portald {pid} still runs 30 s after the process that started it was killed"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    # The killed script's child is reparented to init, which reaps it: gone from /proc once it exits.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_console_script_runs_the_binary():
    out = subprocess.run([os.path.join(os.path.dirname(sys.executable), "portald"), "-h"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "Usage: portald" in out.stdout, out


def test_the_wheel_is_tagged_for_this_platform():
    # WHEEL's tags, as installed, include this machine's.
    dist = [d for d in os.listdir(os.path.dirname(os.path.dirname(portald.__file__))) if d.startswith("portald-") and d.endswith(".dist-info")]
    assert len(dist) == 1
    root = os.path.dirname(os.path.dirname(portald.__file__))
    with open(os.path.join(root, dist[0], "WHEEL")) as f:
        tags = [line.split(": ")[1].strip() for line in f if line.startswith("Tag: ")]
    from packaging.tags import sys_tags  # pip's vendored copy is not importable; packaging is in the lock
    assert set(tags) & {str(t) for t in sys_tags()}, tags


def test_the_wheel_installs_its_license():
    # Core metadata 2.4 as pip installed it: the SPDX expression, and the LICENSE file it names.
    import importlib.metadata

    dist = importlib.metadata.distribution("portald")
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    assert dist.metadata.get_all("License-File") == ["LICENSE"]
    (license_file,) = [f for f in dist.files if f.parts[-2:] == ("licenses", "LICENSE")]
    text = license_file.read_text()
    assert text.lstrip().startswith("Apache License") and "END OF TERMS AND CONDITIONS" in text


def test_the_wheel_says_where_the_project_lives():
    import importlib.metadata

    urls = dict(u.split(", ", 1) for u in importlib.metadata.metadata("portald").get_all("Project-URL"))
    assert urls == {
        "Homepage": "https://github.com/orgportal/portal-api",
        "Source": "https://github.com/orgportal/portal-api",
        "Issues": "https://github.com/orgportal/portal-api/issues",
    }
