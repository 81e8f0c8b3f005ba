"""portald, the organization portal emulator, for Python tests.

    from portald import Portal

    with Portal(tls=True) as p:
        gis = GIS(p.url, "admin", "admin-password", ca_bundles=p.ca_bundle)
        p.add_fault("moveItems", error={"code": 498})
        ...
        assert [r["operation"] for r in p.journal()] == [...]

The wheel carries the portald binary of its platform; PORTALD_BIN (or binary=) names another one. The
pytest plugin (portald.pytest_plugin, loaded by pytest through its entry point) gives the fixtures
`portal` (one emulator for the session) and `fresh_portal` (the same, put back to its start for each test).
Only the standard library is used.
"""

from __future__ import annotations

import datetime as _dt
import http.client
import json
import os
import queue
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import weakref
from typing import Any, Mapping, Optional, Sequence, Union

__all__ = [
    "Portal",
    "PortalError",
    "binary_path",
    "ADMIN",
    "ADMIN_PASSWORD",
    "ADMIN_TOKEN",
    "MEMBER",
    "MEMBER_PASSWORD",
    "MEMBER_TOKEN",
    "PUBLISHER_TOKEN",
    "ORG_ID",
    "OTHER_ORG_ID",
    "ROADS",
    "PARCELS",
    "HYDRANTS",
    "PROJECTS",
    "ARCHIVE",
    "DEMO_USERS",
]

# The demo organizations of portald's built-in seed (server/seed/demo.yaml).
ORG_ID = "0123456789ABCDEF"
OTHER_ORG_ID = "FEDCBA9876543210"
ADMIN, ADMIN_PASSWORD, ADMIN_TOKEN = "admin", "admin-password", "demo-admin-token"
MEMBER, MEMBER_PASSWORD, MEMBER_TOKEN = "jsmith", "jsmith-password", "demo-user-token"
PUBLISHER_TOKEN = "demo-publisher-token"
ROADS = "93b54c8930ae46d9a00a7820cb3ebbd1"  # jsmith's, root folder
PARCELS = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"  # jsmith's, folder Projects
HYDRANTS = "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3"  # jsmith's, root folder
PROJECTS = "1a9ad803da604628b08c968ce602a231"
ARCHIVE = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"
# user name: (password, token)
DEMO_USERS = {
    "admin": ("admin-password", "demo-admin-token"),
    "jsmith": ("jsmith-password", "demo-user-token"),
    "jdoe": ("jdoe-password", "demo-publisher-token"),
    "secadmin": ("secadmin-password", "demo-secadmin-token"),
    "catadmin": ("catadmin-password", "demo-catadmin-token"),
    "contentadmin": ("contentadmin-password", "demo-contentadmin-token"),
    "viewer": ("viewer-password", "demo-viewer-token"),
    "otheradmin": ("otheradmin-password", "demo-other-admin-token"),
    "otheruser": ("otheruser-password", "demo-other-user-token"),
}

_EXE = "portald.exe" if sys.platform == "win32" else "portald"
# portald's first line on stdout (cmd/portald startLine).
_START_LINE = re.compile(r"^portald listening on ([^ ,]+), API at (\S+),")
_CERT = re.compile(r", HTTPS certificate (.+?) \(")
_TOKENS = re.compile(r", demo tokens: (.*)$")


class PortalError(Exception):
    """An /emulator/ call the emulator refused: its HTTP status and error envelope."""

    def __init__(self, status: int, body: Any, what: str):
        self.status = status
        self.body = body
        err = body.get("error", {}) if isinstance(body, dict) else {}
        self.message = err.get("message") or str(body)
        self.details = err.get("details") or []
        super().__init__(f"{what}: HTTP {status}: {self.message} {self.details}".rstrip(" []"))


def binary_path() -> str:
    """The portald binary to run: PORTALD_BIN, else the one this wheel carries."""
    env = os.environ.get("PORTALD_BIN")
    if env:
        return env
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _EXE)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"no portald binary at {path}: install the wheel of this platform, or set PORTALD_BIN"
        )
    return path


def _duration(d: Union[str, _dt.timedelta, int, float]) -> str:
    """A Go duration string: "2h", a timedelta, or seconds."""
    if isinstance(d, str):
        return d
    if isinstance(d, _dt.timedelta):
        d = d.total_seconds()
    return f"{d!r}s"


def _drain(f) -> None:
    f.read()
    f.close()


def _stop(proc: subprocess.Popen, tmpdir: Optional[str]) -> None:
    # Also run when a Portal is collected or the interpreter exits without stop().
    if proc.poll() is None:
        proc.terminate()  # SIGTERM: portald shuts down gracefully
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdin:
        proc.stdin.close()
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)


class Portal:
    """One portald process on a free loopback port, with an in-memory store.

    tls: serve HTTPS with a certificate written for this process (ca_bundle is its path).
    seed: a seed file (YAML or JSON, the shape of portald's demo seed) instead of the demo organizations.
    args: more portald flags, e.g. ["-version", "11.0"] or ["-context", "/portal"].
    """

    def __init__(
        self,
        *,
        tls: bool = False,
        seed: Optional[Union[str, os.PathLike]] = None,
        args: Sequence[str] = (),
        admin_token: Optional[str] = None,
        binary: Optional[str] = None,
        log_file: Optional[Union[str, os.PathLike]] = None,
        startup_timeout: float = 30.0,
    ):
        self.tls = tls
        self.seed = os.fspath(seed) if seed is not None else None
        self.args = list(args)
        self.admin_token = admin_token
        self.binary = binary
        self.log_file = os.fspath(log_file) if log_file is not None else None
        self.startup_timeout = startup_timeout
        self.url: str = ""  # the portal's root (what GIS() takes), context included
        self.rest_url: str = ""  # url + /sharing/rest
        self.emulator_url: str = ""  # the server's root + /emulator
        self.address: str = ""  # host:port
        self.ca_bundle: Optional[str] = None  # the certificate to trust, with tls=True
        self.tokens: dict = {}  # user name -> token, for the demo seed
        self.users: dict = {}  # user name -> (password, token), for the demo seed
        self._proc: Optional[subprocess.Popen] = None
        self._finalizer = None
        self._conn: Optional[http.client.HTTPConnection] = None
        self._lock = threading.Lock()
        self._ssl: Optional[ssl.SSLContext] = None

    # Demo seed shortcuts, as in Go's portaltest.
    ADMIN, ADMIN_PASSWORD, ADMIN_TOKEN = ADMIN, ADMIN_PASSWORD, ADMIN_TOKEN
    MEMBER, MEMBER_PASSWORD, MEMBER_TOKEN = MEMBER, MEMBER_PASSWORD, MEMBER_TOKEN
    PUBLISHER_TOKEN = PUBLISHER_TOKEN
    ORG_ID, OTHER_ORG_ID = ORG_ID, OTHER_ORG_ID
    ROADS, PARCELS, HYDRANTS, PROJECTS, ARCHIVE = ROADS, PARCELS, HYDRANTS, PROJECTS, ARCHIVE

    # --- process ---------------------------------------------------------------------------------

    def start(self) -> "Portal":
        if self._proc is not None:
            raise RuntimeError("portal already started")
        binary = self.binary or binary_path()
        tmpdir = tempfile.mkdtemp(prefix="portald-")
        # -exit-with-stdin: portald ends when this process does, however it ends (SIGTERM from a CI
        # timeout, a crash), since the pipe held as its stdin closes then.
        cmd = [binary, "-addr", "127.0.0.1:0", "-db", ":memory:", "-exit-with-stdin"]
        if self.tls:
            cmd += ["-tls", "-tls-cert", os.path.join(tmpdir, "cert.pem"), "-tls-key", os.path.join(tmpdir, "key.pem")]
        if self.seed is not None:
            cmd += ["-seed", self.seed]
        if self.admin_token:
            cmd += ["-admin-token", self.admin_token]
        cmd += self.args
        log_path = self.log_file or os.path.join(tmpdir, "portald.log")
        try:
            with open(log_path, "ab") as log:
                proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        except BaseException:
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise
        self._proc = proc
        self.log_path = log_path
        self._finalizer = weakref.finalize(self, _stop, proc, tmpdir)

        # The first line names the address; read it on a thread to bound the wait.
        lines: "queue.Queue[bytes]" = queue.Queue()
        threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=self.startup_timeout).decode("utf-8", "replace").strip()
        except queue.Empty:
            tail = self._log_tail(log_path)  # before stop, which removes the log
            self.stop()
            raise RuntimeError(f"portald did not start within {self.startup_timeout}s: {tail}")
        m = _START_LINE.match(line)
        if not m:
            proc.wait(timeout=10)
            tail = self._log_tail(log_path)
            self.stop()
            proc.stdout.close()  # its reader has returned: the line was read
            raise RuntimeError(f"portald did not start (exit {proc.returncode}): {line} {tail}".rstrip())
        self.address, self.rest_url = m.group(1), m.group(2)
        self.url = self.rest_url[: -len("/sharing/rest")]
        scheme = "https" if self.tls else "http"
        self.emulator_url = f"{scheme}://{self.address}/emulator"
        c = _CERT.search(line)
        self.ca_bundle = c.group(1) if c else None
        t = _TOKENS.search(line)
        if t:
            self.tokens = dict(pair.split("=", 1) for pair in t.group(1).split())
            self.users = {u: (DEMO_USERS[u][0], tok) for u, tok in self.tokens.items() if u in DEMO_USERS}
        if self.tls:
            self._ssl = ssl.create_default_context(cafile=self.ca_bundle)
        # Nothing more comes on stdout; drain it anyway so that portald never blocks on it, and close
        # it at its end (here, not in stop: closing a file another thread reads is not safe).
        threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
        return self

    @staticmethod
    def _log_tail(path: str) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop portald (gracefully, then killed after 10 s) and remove its certificate and log."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> "Portal":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Portal({self.url or 'not started'})"

    # --- the emulator's API (emulator.yaml) ------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, query: Optional[Mapping[str, Any]] = None) -> Any:
        if self._proc is None:
            raise RuntimeError("portal not started")
        target = "/emulator" + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                target += "?" + urllib.parse.urlencode(q)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.admin_token:
            headers["Authorization"] = "Bearer " + self.admin_token
        with self._lock:
            # One kept-alive connection: a test's reset costs a round trip, not a TCP and TLS handshake.
            for attempt in (0, 1):
                if self._conn is None:
                    if self._ssl is not None:
                        self._conn = http.client.HTTPSConnection(self.address, timeout=60, context=self._ssl)
                    else:
                        self._conn = http.client.HTTPConnection(self.address, timeout=60)
                try:
                    self._conn.request(method, target, body=data, headers=headers)
                    resp = self._conn.getresponse()
                    raw = resp.read()
                    break
                except (http.client.HTTPException, ConnectionError):
                    # The server closed an idle connection: once more on a new one.
                    self._conn.close()
                    self._conn = None
                    if attempt:
                        raise
        try:
            doc = json.loads(raw) if raw else None
        except ValueError:
            doc = raw.decode("utf-8", "replace")
        if resp.status >= 300:
            raise PortalError(resp.status, doc, f"{method} {target}")
        return doc

    def reset(self) -> None:
        """The store back to the seed; fault rules, journal and clock offset cleared."""
        self._call("POST", "/reset")

    def snapshot(self, name: str) -> None:
        """Save the whole store under name (overwrites)."""
        self._call("PUT", "/snapshots/" + urllib.parse.quote(name, safe=""))

    def restore(self, name: str) -> None:
        """The store back to the snapshot name, atomically (faults, journal and clock stay)."""
        self._call("POST", "/snapshots/" + urllib.parse.quote(name, safe="") + "/restore")

    def snapshots(self) -> list:
        """The saved snapshots: [{"name": ..., "created": ...}]."""
        return self._call("GET", "/snapshots")["snapshots"]

    def delete_snapshot(self, name: str) -> None:
        self._call("DELETE", "/snapshots/" + urllib.parse.quote(name, safe=""))

    def add_fault(self, operation: str, **rule: Any) -> dict:
        """Add a fault rule on an operationId of openapi.yaml; rule keys as in emulator.yaml's Fault
        (match, skip, times, error, itemErrors or item_errors, status, headers, delay, drop).
        Answers the rule with its id."""
        if "item_errors" in rule:
            rule["itemErrors"] = rule.pop("item_errors")
        if "delay" in rule:
            rule["delay"] = _duration(rule["delay"])
        return self._call("POST", "/faults", dict(rule, operation=operation))

    def faults(self) -> list:
        """The fault rules with their counts (matched, fired, remaining)."""
        return self._call("GET", "/faults")["faults"]

    def remove_fault(self, fault_id: Union[str, Mapping[str, Any]]) -> None:
        if isinstance(fault_id, Mapping):
            fault_id = fault_id["id"]
        self._call("DELETE", "/faults/" + urllib.parse.quote(fault_id, safe=""))

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults")

    def journal(
        self,
        operation: Optional[str] = None,
        *,
        unmatched: bool = False,
        since: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> list:
        """The API calls, oldest first: each a dict with seq, time, operation, method, path, params,
        caller, answer, fault, durationMs. operation filters by operationId; unmatched=True lists the
        calls that matched no operation."""
        q = {"operation": operation, "since": since, "limit": limit, "unmatched": "true" if unmatched else None}
        return self._call("GET", "/requests", query=q)["requests"]

    requests = journal

    def clear_journal(self) -> None:
        self._call("DELETE", "/requests")

    def clock(self) -> dict:
        """The emulator's clock: {"now": ..., "offset": ...}."""
        return self._call("GET", "/clock")

    def advance_clock(self, by: Union[str, _dt.timedelta, int, float]) -> dict:
        """Move the clock forward: "2h", a timedelta, or seconds."""
        return self._call("POST", "/clock", {"advance": _duration(by)})

    def set_clock(self, at: Union[str, _dt.datetime]) -> dict:
        if isinstance(at, _dt.datetime):
            if at.tzinfo is None:
                at = at.replace(tzinfo=_dt.timezone.utc)
            at = at.isoformat()
        return self._call("POST", "/clock", {"set": at})

    def reset_clock(self) -> dict:
        return self._call("POST", "/clock", {"reset": True})

    def add_organization(self, organization: Mapping[str, Any]) -> str:
        """Create an organization from a seed-shaped document; answers its id."""
        return self._call("POST", "/organizations", dict(organization))["id"]

    def remove_organization(self, org_id: str) -> None:
        self._call("DELETE", "/organizations/" + urllib.parse.quote(org_id, safe=""))

    def fresh(self, snapshot: str) -> None:
        """What the fresh_portal fixture does before each test: the store back to the snapshot,
        and no fault rule, journal or clock offset left from before."""
        self.restore(snapshot)
        self.clear_faults()
        self.clear_journal()
        self.reset_clock()

