#!/usr/bin/env python3
"""The ArcGIS API for Python 2.4.3 against portald, replayed with the standard library.

The real client (PyPI `arcgis`) cannot be installed where `make test` runs, so this module sends what it sends,
in its order, with its headers and encodings, and reads each answer the way it reads it: the JSON of any
status, an `error` key raised as its formatted exception, the sign-in page cut out with its regular
expression, the redirect fragment checked as oauthlib checks it. References `file:line` are to the files of
the arcgis 2.4.3 wheel (and oauthlib 3.3.1), where the behaviour copied here lives.

Each test is one thing a user does: `GIS()` in each of its four sign-ins, `gis.version`, `gis.org_settings`,
`gis.users.categories`, `Item.move`, `moveItems` through `gis._con.post`. Every test starts from the demo
organization (POST /emulator/reset).

    PORTAL_TLS=true make run    # in another terminal
    PORTAL_URL=https://127.0.0.1:8080 REQUESTS_CA_BUNDLE=portal-cert.pem python3 arcgis_python_replay.py -v

PORTAL_URL is what a user passes to GIS(): the portal's root, with its context when it has one
(https://host/portal). REQUESTS_CA_BUNDLE is the certificate portald wrote. PORTAL_NAME is the expected
portalName ("ArcGIS Online" for -deployment online).
"""

import html.parser
import http.client
import json
import os
import re
import secrets
import ssl
import string
import time
import unittest
import urllib.parse

ROOT = os.environ.get("PORTAL_URL", "https://127.0.0.1:8080").rstrip("/")
CAFILE = os.environ.get("REQUESTS_CA_BUNDLE", "portal-cert.pem")
# portals/self's portalName: "ArcGIS Online" when portald runs with -deployment online.
PORTAL_NAME = os.environ.get("PORTAL_NAME", "ArcGIS Enterprise")

# The demo organization (server/seed/demo.yaml).
ADMIN, ADMIN_PASSWORD, ADMIN_TOKEN = "admin", "admin-password", "demo-admin-token"
MEMBER, MEMBER_PASSWORD, MEMBER_TOKEN = "jsmith", "jsmith-password", "demo-user-token"
VIEWER_TOKEN = "demo-viewer-token"  # user viewer, custom role "viewer": community/users answers roleId
ROADS = "93b54c8930ae46d9a00a7820cb3ebbd1"  # jsmith's, root folder
PARCELS = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"  # jsmith's, folder Projects
PROJECTS = "1a9ad803da604628b08c968ce602a231"
ARCHIVE = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"

USER_AGENT = "Geosaurus/2.4.3"  # _connection.py:216
PROBE_USER_AGENT = "python-requests/2.34.2"
# Statuses the client's urllib3 Retry re-sends five times before failing (auth/api.py:207-227).
RETRIED = (413, 429, 500, 502, 503, 504)

_tls = ssl.create_default_context(cafile=CAFILE)


class Headers(dict):
    """Header names in any case; a missing one is a KeyError, as in requests' CaseInsensitiveDict."""

    def __init__(self, items):
        super().__init__((k.lower(), v) for k, v in items)

    def __getitem__(self, k):
        return super().__getitem__(k.lower())

    def get(self, k, default=None):
        return super().get(k.lower(), default)


class Answer:
    def __init__(self, url, status, headers, body):
        self.url, self.status, self.headers, self.body = url, status, Headers(headers.items()), body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


def send(method, url, query=None, form=None, headers=None):
    """One HTTPS request, as requests sends it; redirects are not followed."""
    u = urllib.parse.urlsplit(url)
    assert u.scheme == "https", url
    target = u.path or "/"
    qs = [q for q in (u.query, urllib.parse.urlencode(query or {})) if q]
    if qs:
        target += "?" + "&".join(qs)
    h = {"Accept": "*/*", "Accept-Encoding": "identity", "Connection": "keep-alive"}
    h.update(headers or {})
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form).encode()
        h["Content-Type"] = "application/x-www-form-urlencoded"
    conn = http.client.HTTPSConnection(u.hostname, u.port, context=_tls, timeout=30)
    try:
        conn.request(method, target, body=body, headers=h)
        resp = conn.getresponse()
        return Answer(url, resp.status, resp.headers, resp.read())
    finally:
        conn.close()


def follow(method, url, form=None, headers=None):
    """A request whose redirects are followed as requests follows them: 301/302/303 become GETs."""
    for _ in range(10):
        a = send(method, url, form=form, headers=headers)
        if a.status not in (301, 302, 303, 307, 308):
            return a
        url = urllib.parse.urljoin(url, a.headers["Location"])
        if a.status in (301, 302, 303):
            method, form = "GET", None
    raise AssertionError("too many redirects")


class ClientError(Exception):
    """What the client raises (it raises plain Exception; this names it for the tests)."""


def read_json(a):
    """Connection._handle_response (_connection.py:877-1009): the body decides, never the status."""
    if a.status in RETRIED:
        raise ClientError(f"A general exception was raised: Max retries exceeded (too many {a.status} error responses)")
    ctype = a.headers.get("Content-Type", "").lower()
    if ctype and "json" not in ctype and "text" not in ctype:
        raise ClientError(f"the client saves a {ctype} answer to a file and returns its path")
    if a.headers.get("Content-Length") == "0":
        return {}
    if a.headers.get("Transfer-Encoding", "").lower() == "chunked":
        data = json.loads(a.text)
        if "error" in data:
            raise ClientError(data["error"])  # the dict itself, not the formatted message
    else:
        try:
            data = json.loads(a.text)
        except ValueError:
            raise ClientError(a.text)
    if "error" in data:
        if "messages" in data:
            return data
        raise ClientError(json_error(data["error"]))
    return data


def json_error(error):
    """_handle_json_error (_connection.py:1011-1028)."""
    msg = error.get("message")
    if msg is None:
        msg = "Unknown Error"
    details = error.get("details")
    if isinstance(details, str):
        msg = f"{msg} \n {details}"
    elif details is not None:
        for d in details:
            if isinstance(d, str):
                msg += "\n" + d
    return msg + "\n(Error Code: " + str(error.get("code", 0)) + ")"


def form_values(params):
    """Connection.post/get encode dict, list, tuple and bool values as JSON, the rest with str()."""
    return {k: json.dumps(v) if isinstance(v, (dict, list, tuple, bool)) else str(v) for k, v in params.items()}


def oauth_state_value():
    """oauthlib's generate_token(): 30 characters of letters and digits."""
    chars = string.ascii_letters + string.digits
    return "".join(secrets.choice(chars) for _ in range(30))


def arcgis_base(url):
    """_parse_arcgis_url (auth/_auth/_token.py:88-110): scheme://netloc plus the segment before sharing/rest."""
    u = urllib.parse.urlsplit(url)
    if len(u.path) <= 1:
        return f"{u.scheme}://{u.netloc}"
    idx = u.path.lower().find("sharing/rest")
    wa = u.path[1:idx].replace("/", "") if idx != -1 else u.path[1:].split("/")[0]
    return f"{u.scheme}://{u.netloc}/{wa}" if wa else f"{u.scheme}://{u.netloc}"


class _Scripts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self._in = [], False

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._in = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.scripts[-1] += data


def match_oauth_info(page):
    """_match_oauth_info (_token.py:963-989): the first `var x = {...}` of a <script> that is JSON."""
    p = _Scripts()
    p.feed(page)
    patterns = [(re.compile(r"var oAuthInfo = ({.*?});", re.DOTALL), 0),
                (re.compile(r"var oAuthInfo = ({.*?})", re.DOTALL), 0),
                (re.compile(r"var\s+(\w+)\s*=\s*({.*?})", re.DOTALL), 1)]
    for script in p.scripts:
        for rx, group in patterns:
            m = rx.search(script.strip())
            if not m:
                continue
            for text in (m.groups()[group], m.groups()[group] + "}"):
                try:
                    return json.loads(text)
                except ValueError:
                    pass
    return None


def token_from_fragment(uri, state):
    """oauthlib parse_implicit_response (oauth2/rfc6749/parameters.py:288-356), as requests_oauthlib calls it."""
    if not uri.lower().startswith("https://"):
        raise ClientError("InsecureTransportError: OAuth 2 MUST utilize https.")
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(uri).fragment, keep_blank_values=True))
    if "expires_in" in params:
        try:
            params["expires_at"] = time.time() + int(params["expires_in"])
        except ValueError:
            raise ClientError("expires_in must be an int")
    if state and params.get("state") != state:
        raise ClientError("Mismatching or missing state in params.")
    if "error" in params:
        raise ClientError(f"({params['error']}) {params.get('error_description', '')}")
    if "access_token" not in params:
        raise ClientError("MissingTokenError: Missing access token parameter.")
    return params


class TokenAuth:
    """EsriAPIKeyAuth (token= and api_key=, auth/_auth/_apikey.py:62-110)."""

    oauth = False

    def __init__(self, token):
        self._token = token

    def token(self, con):
        return self._token


class OAuthAuth:
    """EsriBuiltInAuth (user name and password, auth/_auth/_token.py:424-998): the implicit grant of the
    built-in app pythonapi, falling back to the code flow when it yields no token."""

    oauth = True

    def __init__(self, root, username, password, expiration=600):
        base = arcgis_base(root + "/sharing/rest")
        self.auth_url = base + "/sharing/rest/oauth2/authorize"
        self.signin_url = base + "/sharing/oauth2/signin"  # no /rest
        self.username, self.password, self.expiration = username, password, expiration
        self.expires_at = None
        self._token = None
        self.fragment = None

    def token(self, con):
        # Signs in again when fewer than 5 minutes are left (_token.py:829-854).
        if self._token is None or time.time() + 300 >= self.expires_at:
            try:
                self._implicit(con)
            except Exception:  # any failure but ArcGISLoginError, which this replay never meets
                self._code_flow(con)
        return self._token

    def authorize_url(self, redirect_uri, response_type="token", expiration=None):
        state = oauth_state_value()
        q = [("response_type", response_type), ("client_id", "pythonapi"), ("redirect_uri", redirect_uri),
             ("state", state), ("expiration", expiration or self.expiration), ("allow_verification", "false"),
             ("style", "dark"), ("locale", "en-US")]
        return self.auth_url + "?" + urllib.parse.urlencode(q), state

    def _implicit(self, con):
        """_init_response_type_token (_token.py:548-650)."""
        redirect_uri = "urn:ietf:wg:oauth:2.0:oob"
        netloc = urllib.parse.urlsplit(self.auth_url).netloc
        for candidate in (f"https://{netloc}", "urn:ietf:wg:oauth:2.0:oob", "https://www.arcgis.com"):
            url, _ = self.authorize_url(candidate)
            if "Invalid redirect_uri" not in con.send("GET", url, drop_auth=True).text:
                redirect_uri = candidate
                break
        self.redirect_uri = redirect_uri
        url, state = self.authorize_url(redirect_uri)
        page = con.send("GET", url, drop_auth=True).text
        m = re.search(r"\{.*\}", page, re.MULTILINE)
        info = json.loads(m[0]) if m else None
        if "oauth_state" in info:  # TypeError without a match, as in the client
            oauth_state = info.get("oauth_state")
        elif '"oauth_state":"' in page:
            oauth_state = page.split('"oauth_state":"')[1].split('"')[0]
        else:
            raise ClientError("Unable to generate oauth token")
        self.oauth_info = info
        a = con.send("POST", self.signin_url, form={"expiration": self.expiration, "oauth_state": oauth_state,
                                                    "username": self.username, "password": self.password},
                     drop_auth=True)
        self.signin_answer = a
        if "OAUTH_0015" in a.text:
            raise ClientError("terms and conditions")
        callback = a.headers["Location"]  # KeyError without one: the code flow follows
        self.fragment = token_from_fragment(callback, state)
        self._token = self.fragment["access_token"]
        self.expires_at = self.fragment.get("expires_at", time.time() + 300)

    def _code_flow(self, con):
        """_init_token_auth_handshake (_token.py:652-826), up to the messages of a refused sign-in."""
        url, _ = self.authorize_url("urn:ietf:wg:oauth:2.0:oob", response_type="code", expiration=20160)
        content = con.send("GET", url, drop_auth=True).text
        if "Error: Invalid client_id" in content:
            raise ClientError("the client would retry as arcgisonline")
        oauth_state = (match_oauth_info(content) or {}).get("oauth_state")
        if not oauth_state:
            raise ClientError("Could not login. Please ensure you have valid credentials and set your security login question.")
        a = follow("POST", self.signin_url, form={"oauth_state": oauth_state, "authorize": "True",
                                                  "username": self.username, "password": self.password},
                   headers=con.headers())
        self.code_flow_answer = a
        info = match_oauth_info(a.text)
        messages = info["messages"] if "messages" in info else []  # TypeError without a script, as in the client
        if any("invalid username or password" in m.lower() or "Too many invalid attempts. Please try again later." in m
               for m in messages):
            raise ClientError(",".join(messages))
        raise ClientError("the code flow went on to a page this replay does not follow: " + a.url)


class GenTokenAuth:
    """EsriGenTokenAuth (use_gen_token=True, auth/_auth/_token.py:1013-1331)."""

    oauth = False

    def __init__(self, token_url, username, password):
        self.token_url, self.username, self.password = token_url, username, password
        self._token = None

    def token(self, con):
        if self._token is None:
            a = con.send("POST", self.token_url, drop_auth=True, form={
                "username": self.username, "password": self.password, "referer": "http", "client": "referer",
                "expiration": 60, "f": "json"})
            if a.status != 200:
                raise ClientError("Could not generate the token")
            data = json.loads(a.text)
            if "error" in data:
                raise ClientError(data)
            self.expires = int(data["expires"]) / 1000 if "expires" in data else None
            self._token = data["token"]  # KeyError without one
        return self._token


class Connection:
    """Connection and its EsriSession (gis/_impl/_con/_connection.py): headers, the token header, the
    paths the auth handlers stop sending it to, f=json and the reading of answers."""

    def __init__(self, resturl):
        self.baseurl = resturl  # ends with /
        self.auth = None
        self.no_token = set()  # (scheme, host, path) the auth handler sends anonymously from now on

    def headers(self):
        return {"User-Agent": USER_AGENT, "Referer": "http"}

    def url(self, path):
        return path if "://" in path else self.baseurl + path

    def send(self, method, url, query=None, form=None, drop_auth=False):
        h = self.headers()
        u = urllib.parse.urlsplit(url)
        key = (u.scheme, u.netloc, u.path)
        token = None
        if self.auth is not None and not drop_auth and key not in self.no_token:
            try:
                token = self.auth.token(self)
            except Exception as e:
                # Raised inside the request: Connection.get/post wrap it (_connection.py:856-857).
                raise ClientError(f"A general error occurred: {e}") from e
            h["X-Esri-Authorization"] = f"Bearer {token}"
        a = send(method, url, query=query, form=form, headers=h)
        if token is not None and self._drops_token(a):
            # The response hook: the path goes on the session's list and the request is sent again without the token.
            self.no_token.add(key)
            del h["X-Esri-Authorization"]
            a = send(method, url, query=query, form=form, headers=h)
        return a

    def _drops_token(self, a):
        text = a.text
        if "invalid token" in text.lower() or "Token is valid but access is denied." in text:
            return True
        return self.auth.oauth and 400 <= a.status < 500  # EsriBuiltInAuth.handle_401, _token.py:883-935

    def get(self, path, params=None):
        q = form_values(dict(params or {}, f="json"))
        return read_json(self.send("GET", self.url(path), query=q))

    def post(self, path, params=None):
        f = form_values(dict(params or {}, f="json"))
        return read_json(self.send("POST", self.url(path), form=f))

    def raw_get(self, path, params):
        """The folder manager's calls: the session itself, raise_for_status(), then .json() (folder/core.py)."""
        a = self.send("GET", self.url(path), query=params)
        if a.status >= 400:
            raise ClientError(f"requests.HTTPError: {a.status}")
        return json.loads(a.text)


class GIS:
    """GIS(url, ...) (gis/__init__.py:560-760) and what it reads while it is made."""

    def __init__(self, url, username=None, password=None, token=None, api_key=None, use_gen_token=False):
        url = url.split("/home")[0]
        if url.startswith("http://"):
            url = "https://" + url[len("http://"):]
        self.url = url.rstrip("/")
        self.resturl = self.url + "/sharing/rest/"  # Portal.resturl (_portalpy.py:142-158)
        self.probe_answers = probe(self.resturl)
        self._con = Connection(self.resturl)
        if username is None and (token or api_key):
            self._con.auth = TokenAuth(token or api_key)
            self.info = self._con.get("info")  # Connection.__init__ -> _check_product, with the token
        elif use_gen_token:
            self.info = self._con.get("info")  # _create_session -> _check_product, anonymous
            auth_info = self.info.get("authInfo", {})
            assert auth_info.get("isTokenBasedSecurity"), "isTokenBasedSecurity false: the client's auth mode becomes OTHER"
            self.token_url = token_url_validator(auth_info.get("tokenServicesUrl"))
            self._con.auth = GenTokenAuth(self.token_url, username, password)
            self.info = self._con.get("info")
        elif username:
            self.info = self._con.get("info")  # anonymous
            self._con.auth = OAuthAuth(self.url, username, password)
            try:
                self.info = self._con.get("info")  # the first request with the handler signs in
            except ClientError:
                # _check_product retries once (_connection.py:1948-1958): the whole sign-in runs again.
                self.info = self._con.get("info")
        else:
            self.info = self._con.get("info")
        self._properties = self._version = None
        # users.me twice (gis/__init__.py:717-721); it keeps a user, not a None.
        self.me = self.users_me() or self.users_me()
        self.properties  # _is_arcgisonline at the end of GIS() (gis/__init__.py:742, 809-832): a read of its own
        if self.properties["portalName"] == "ArcGIS Online":
            assert self.properties["portalMode"] == "multitenant"

    @property
    def properties(self):
        if self._properties is None:
            self._properties = self._con.get("portals/self")
        return self._properties

    def users_me(self):
        """Portal.logged_in_user (_portalpy.py:1678-1711) and User (gis/__init__.py:12644-12714)."""
        try:
            username = self._con.get("portals/self")["user"]["username"]
        except KeyError:
            return None
        return self.user(self._con.get(f"community/users/{username}"))

    def user(self, userdict):
        userdict["id"], userdict["username"]  # KeyError: GIS() fails
        if "role" in userdict and "roleId" not in userdict:
            userdict["roleId"] = userdict["role"]
        elif "roleId" in userdict:
            try:
                roles = self._con.post("portals/self/roles", {"start": 1, "num": 100})["roles"]
                userdict["role"] = next(r["name"] for r in roles if r["id"] == userdict["roleId"])
            except Exception:
                userdict["role"] = userdict["roleId"]
        return userdict

    @property
    def version(self):
        """GIS.version (gis/__init__.py:1419-1425): GET {rest}/?f=json once, currentVersion split on dots."""
        if self._version is None:
            self._version = [int(i) for i in self._con.get("", {})["currentVersion"].split(".")]
        return self._version

    # gis.org_settings (gis/__init__.py:1522-1572)
    def get_org_settings(self):
        return self._con.post("portals/self/settings") if self.version >= [7, 4] else None

    def set_org_settings(self, value):
        if self.version >= [7, 4] and isinstance(value, dict):
            self._con.post("portals/self/settings/update", value)

    # gis.users.categories (gis/__init__.py:5383-5497)
    def get_categories(self):
        if dict(self.properties).get("hasMemberCategorySchema", False):
            return self._con.get(self.resturl + "portals/self/memberCategorySchema").get("memberCategorySchema", [])
        return None

    def set_categories(self, value):
        if self.version < [10, 1]:
            return
        assign = self.resturl + "portals/self/assignMemberCategorySchema"
        if value is None and dict(self.properties).get("hasMemberCategorySchema", False):
            res = self._con.post(self.resturl + "portals/self/deleteMemberCategorySchema")
        elif isinstance(value, (tuple, list)):
            cats = list(value)  # its isinstance test looks at the list, not the element: strings stay strings
            if self.properties["hasMemberCategorySchema"]:
                cats += self.get_categories()[0]["categories"]
            res = self._con.post(assign, {"memberCategorySchema": {"memberCategorySchema": [
                {"title": "Categories", "categories": cats}]}})
        elif isinstance(value, dict) and "memberCategorySchema" in value:
            if self.properties["hasMemberCategorySchema"]:
                value["memberCategorySchema"][0]["categories"] += self.get_categories()[0]["categories"]
            res = self._con.post(assign, {"memberCategorySchema": value})
        else:
            raise ValueError("A list or tuple must be given to set the categories.")
        if res.get("success", False) is False:
            raise ClientError(res)
        self._properties = None

    # gis.content.get and Item (gis/__init__.py:8289-8317, 14948-15242, 18591-18642)
    def content_get(self, itemid):
        try:
            item = self._con.post(f"content/items/{itemid}")
        except ClientError as e:
            if "Item does not exist or is inaccessible" in str(e):
                return None
            raise
        return Item(self, item)

    def folders_me(self):
        """Folders._me (folder/core.py:1155-1164), cached per gis.content.folders."""
        if not hasattr(self, "_folders_me"):
            self._folders_me = self._con.raw_get(self.resturl + "community/self", {"f": "json"})
        return self._folders_me

    def folder_id(self, folder):
        """Folders.get (folder/core.py:1174-1231) and Folders.list (:1363-1392), the folders of the signed-in user."""
        if folder is None or folder.lower() in ["", " ", "/", "root", "root folder"]:
            folder = "Root Folder"
        owner = self.folders_me().get("username")
        data = self._con.raw_get(self.resturl + f"content/users/{owner}", {"f": "json"})
        for f in [{"id": "Root Folder", "title": "Root Folder"}] + data.get("folders", []):
            if f["title"].lower() == folder.lower() or f["id"] == folder.lower():
                return f["id"]
        raise ClientError("AttributeError: 'NoneType' object has no attribute '_fid'")


class Item(dict):
    def __init__(self, gis, itemdict):
        super().__init__(itemdict)
        self.gis = gis
        self["type"]  # read at once (_has_layers); missing: AttributeError
        self._user = None

    def _hydrate(self):
        itemid = self["id"]
        self.clear()
        self.update(self.gis._con.post(f"content/items/{itemid}"))
        self.gis.user(self.gis._con.get(f"community/users/{self['owner']}"))

    def move(self, folder):
        """Item.move: the owner's user resource, the folder resolved, then Portal.move_item (_portalpy.py:2781-2792)."""
        if self._user is None:  # Item._user_id (gis/__init__.py:15084-15093), cached per Item
            self._user = self.gis.user(self.gis._con.get(f"community/users/{self['owner']}"))
        owner = self._user["username"]
        folder_id = folder["id"] if isinstance(folder, dict) else self.gis.folder_id(folder)
        path = f"content/users/{owner}"
        if self["ownerFolder"]:
            path += f"/{self['ownerFolder']}"
        ret = self.gis._con.post(f"{path}/items/{self['id']}/move", {"folder": folder_id})
        self._hydrate()
        return ret


def probe(resturl):
    """Connection._auth_check (_connection.py:362-413): four GETs with a bare session; only the
    WWW-Authenticate header is read."""
    u = urllib.parse.urlsplit(resturl)
    root = f"{u.scheme}://{u.netloc}/{u.path.strip('/').split('/')[0]}"
    answers = {}
    for path in ("/info", "/rest/info", "/sharing/rest/info", "/rest/services"):
        answers[root + path] = send("GET", root + path, query={"f": "json"}, headers={"User-Agent": PROBE_USER_AGENT})
    return answers


def token_url_validator(url):
    """_token_url_validator (_token.py:57-84): the first of three info resources naming a token service."""
    base = arcgis_base(url) if url else "https://www.arcgis.com"
    assert base != "https://www.arcgis.com", "no tokenServicesUrl: the client would ask www.arcgis.com"
    for part in ("/info", "/rest/info", "/sharing/rest/info"):
        try:
            found = json.loads(send("GET", f"{base}{part}?f=json", headers={"User-Agent": USER_AGENT, "Referer": "http"}).text)["authInfo"]["tokenServicesUrl"]
        except Exception:
            continue
        if found:
            return found
    return None


def emulator(method, path):
    """The emulator's own endpoints (README, The emulator), beside the API at the server's root."""
    u = urllib.parse.urlsplit(ROOT)
    a = send(method, f"{u.scheme}://{u.netloc}/emulator/{path}", headers={"Content-Type": "application/json"})
    return json.loads(a.text)


class Replay(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.assertEqual(emulator("POST", "reset"), {"success": True})

    def assertKeepsToken(self, gis):
        """No answer made the client drop its token: each later call to those paths would be anonymous."""
        self.assertEqual(gis._con.no_token, set())


class SignIn(Replay):
    def test_probes_advertise_no_other_sign_in(self):
        answers = probe(ROOT + "/sharing/rest/")
        u = urllib.parse.urlsplit(ROOT)
        first = (u.path.strip("/") or "sharing")
        self.assertEqual(sorted(urllib.parse.urlsplit(k).path for k in answers),
                         sorted(f"/{first}{p}" for p in ("/info", "/rest/info", "/sharing/rest/info", "/rest/services")))
        for url, a in answers.items():
            self.assertNotRegex(a.headers.get("WWW-Authenticate", ""), r"(?i)negotiate|ntlm|basic", url)

    def test_token(self):
        gis = GIS(ROOT, token=ADMIN_TOKEN)
        self.assertTrue(gis.info["authInfo"]["isTokenBasedSecurity"])
        self.assertEqual(gis.properties["portalName"], PORTAL_NAME)
        self.assertEqual(gis.properties["user"]["username"], ADMIN)
        self.assertEqual((gis.me["username"], gis.me["role"], gis.me["roleId"]), (ADMIN, "org_admin", "org_admin"))
        self.assertRegex(gis.me["id"], r"^[0-9a-f]{32}$")
        self.assertKeepsToken(gis)

    def test_api_key_custom_role(self):
        # api_key= is sent as token= is; this member's custom role makes the client read portals/self/roles.
        gis = GIS(ROOT, api_key=VIEWER_TOKEN)
        self.assertEqual((gis.me["username"], gis.me["roleId"], gis.me["role"]), ("viewer", "viewer", "viewer"))
        self.assertKeepsToken(gis)

    def test_unknown_token_reads_the_portal_anonymously(self):
        # The 498 says "Invalid token.": the client drops the token for the path and reads it anonymously.
        gis = GIS(ROOT, token="not-a-token")
        self.assertIsNone(gis.me)
        self.assertEqual(gis.properties["portalName"], PORTAL_NAME)
        self.assertNotIn("user", gis.properties)
        self.assertIn(("https", urllib.parse.urlsplit(ROOT).netloc, urllib.parse.urlsplit(ROOT).path + "/sharing/rest/portals/self"),
                      gis._con.no_token)

    def test_username_password(self):
        gis = GIS(ROOT, ADMIN, ADMIN_PASSWORD)
        auth = gis._con.auth
        u = urllib.parse.urlsplit(ROOT)
        self.assertEqual(auth.redirect_uri, f"https://{u.netloc}")  # the first candidate, no context
        self.assertEqual(sorted(auth.oauth_info), sorted(["oauth_state", "client_id", "locale"]))
        self.assertEqual(auth.signin_answer.status, 302)
        self.assertTrue(auth.signin_answer.headers["Location"].startswith(f"https://{u.netloc}#access_token="))
        self.assertEqual(int(auth.fragment["expires_in"]), 600 * 60)  # expiration=600 minutes, > 300 s
        self.assertEqual((auth.fragment["username"], auth.fragment["ssl"]), (ADMIN, "true"))
        self.assertEqual(gis.me["username"], ADMIN)
        self.assertKeepsToken(gis)
        # The token is the user's: what portals/self says with it.
        self.assertEqual(gis.properties["user"]["username"], ADMIN)

    def test_wrong_password(self):
        # The sign-in page again with its message (no Location: the client falls back to the code flow,
        # whose page says the same); _check_product runs it all twice.
        with self.assertRaises(ClientError) as e:
            GIS(ROOT, MEMBER, "wrong-password")
        self.assertEqual(str(e.exception), "A general error occurred: Invalid username or password.")

    def test_wrong_password_pages(self):
        con = Connection(ROOT + "/sharing/rest/")
        con.auth = auth = OAuthAuth(ROOT, MEMBER, "wrong-password")
        with self.assertRaises(KeyError):
            auth._implicit(con)
        self.assertEqual(auth.signin_answer.status, 200)
        page = auth.signin_answer.text
        info = json.loads(re.search(r"\{.*\}", page, re.MULTILINE)[0])
        self.assertEqual(info["messages"], ["Invalid username or password."])
        with self.assertRaises(ClientError) as e:
            auth._code_flow(con)
        self.assertEqual(str(e.exception), "Invalid username or password.")
        self.assertEqual(auth.code_flow_answer.status, 200)
        self.assertEqual(match_oauth_info(auth.code_flow_answer.text)["messages"], ["Invalid username or password."])

    def test_use_gen_token(self):
        gis = GIS(ROOT, MEMBER, MEMBER_PASSWORD, use_gen_token=True)
        self.assertEqual(gis.token_url, ROOT + "/sharing/rest/generateToken")
        auth = gis._con.auth
        # expiration=60 minutes, read from expires (epoch milliseconds).
        self.assertAlmostEqual(auth.expires - time.time(), 3600, delta=120)
        self.assertEqual(gis.me["username"], MEMBER)
        self.assertKeepsToken(gis)


class AfterSignIn(Replay):
    def test_version(self):
        gis = GIS(ROOT, token=MEMBER_TOKEN)
        v = gis.version
        # The same as the root without the slash, and as portals/self says.
        self.assertEqual(".".join(map(str, v)), gis._con.get(ROOT + "/sharing/rest")["currentVersion"])
        self.assertEqual(".".join(map(str, v)), gis.properties["currentVersion"])
        self.assertGreaterEqual(v, [10, 1])  # org_settings needs 7.4, the categories setter 10.1

    def test_org_settings(self):
        gis = GIS(ROOT, ADMIN, ADMIN_PASSWORD)
        self.assertIsInstance(gis.get_org_settings(), dict)
        banner = {"text": "Read-only until 18:00 UTC", "bgColor": "grey", "fontColor": "#FFFFFF", "enabled": True}
        gis.set_org_settings({"informationalBanner": banner, "clearEmptyFields": True})
        self.assertEqual(gis.get_org_settings()["informationalBanner"], banner)
        with self.assertRaises(ClientError) as e:
            gis.set_org_settings({"informationalBanner": {"text": "x", "bgColor": "mauve", "fontColor": "#FFFFFF", "enabled": True}})
        self.assertRegex(str(e.exception), r"bgColor[\s\S]*\(Error Code: 400\)$")
        self.assertKeepsToken(gis)

    def test_categories(self):
        gis = GIS(ROOT, ADMIN, ADMIN_PASSWORD)
        self.assertIs(gis.properties["hasMemberCategorySchema"], False)
        self.assertIsNone(gis.get_categories())
        office = {"memberCategorySchema": [{"title": "Office Location", "categories": [{"title": "USA"}, {"title": "Canada"}]}]}
        gis.set_categories(office)
        self.assertIs(gis.properties["hasMemberCategorySchema"], True)
        self.assertEqual(gis.get_categories(), office["memberCategorySchema"])
        # With a schema, the client appends the first node's children to the new first node.
        gis.set_categories({"memberCategorySchema": [{"title": "Department", "categories": [{"title": "Planning"}]}]})
        self.assertEqual(gis.get_categories(), [{"title": "Department", "categories": [
            {"title": "Planning"}, {"title": "USA"}, {"title": "Canada"}]}])
        gis.set_categories(None)
        self.assertIs(gis.properties["hasMemberCategorySchema"], False)
        self.assertIsNone(gis.get_categories())
        with self.assertRaises(ValueError):
            gis.set_categories(None)  # the None branch needs a schema
        self.assertKeepsToken(gis)

    def test_categories_list_form(self):
        # The list form sends bare strings as categories; the documented schema takes objects: refused,
        # the field and the node named.
        gis = GIS(ROOT, ADMIN, ADMIN_PASSWORD)
        with self.assertRaises(ClientError) as e:
            gis.set_categories(["Office Location", "Department"])
        self.assertIn("memberCategorySchema", str(e.exception))
        self.assertTrue(str(e.exception).endswith("(Error Code: 400)"), str(e.exception))
        self.assertIs(gis.properties["hasMemberCategorySchema"], False)

    def test_item_move(self):
        gis = GIS(ROOT, MEMBER, MEMBER_PASSWORD)
        roads = gis.content_get(ROADS)
        self.assertIsNone(roads["ownerFolder"])
        # By folder id, from the root.
        self.assertEqual(roads.move(PROJECTS), {"success": True, "itemId": ROADS, "owner": MEMBER, "folder": PROJECTS})
        self.assertEqual(roads["ownerFolder"], PROJECTS)
        # By title, from a folder: the current folder is in the path.
        self.assertEqual(roads.move("archive"), {"success": True, "itemId": ROADS, "owner": MEMBER, "folder": ARCHIVE})
        self.assertEqual(roads["ownerFolder"], ARCHIVE)
        # To the root: the client sends folder=Root Folder.
        ret = roads.move("/")
        self.assertEqual((ret["success"], ret["itemId"], ret["owner"]), (True, ROADS, MEMBER))
        self.assertIsNone(roads["ownerFolder"])
        # An item already there: the portal's refusal, raised.
        parcels = gis.content_get(PARCELS)
        with self.assertRaises(ClientError) as e:
            parcels.move(PROJECTS)
        self.assertIn("(Error Code:", str(e.exception))
        self.assertIsNone(gis.content_get("0" * 32))
        self.assertKeepsToken(gis)

    def test_move_items_through_the_connection(self):
        gis = GIS(ROOT, MEMBER, MEMBER_PASSWORD)
        res = gis._con.post(f"content/users/{MEMBER}/moveItems", {"items": f"{ROADS},{PARCELS}", "folder": ARCHIVE})
        self.assertEqual(res, {"results": [{"itemId": ROADS, "success": True}, {"itemId": PARCELS, "success": True}]})
        # A list is JSON-encoded.
        res = gis._con.post(f"content/users/{MEMBER}/moveItems", {"items": [ROADS, PARCELS], "folder": "/"})
        self.assertEqual([r["success"] for r in res["results"]], [True, True])
        self.assertIsNone(gis.content_get(ROADS)["ownerFolder"])
        self.assertKeepsToken(gis)

    def test_double_slash_base(self):
        # GIS.resturl keeps only the first path segment: https://host//sharing/rest/ without a context.
        u = urllib.parse.urlsplit(ROOT)
        first = u.path.strip("/").split("/")[0]
        resturl = f"{u.scheme}://{u.netloc}/{first}/sharing/rest/"
        gis = GIS(ROOT, token=MEMBER_TOKEN)
        self.assertEqual(gis._con.get(resturl + f"community/users/{MEMBER}")["username"], MEMBER)
        self.assertEqual(gis._con.get(resturl + f"content/items/{ROADS}")["id"], ROADS)


class Journal(Replay):
    def test_only_the_probes_are_unmatched(self):
        # What the client called that portald has no operation for: the start-up probes alone.
        gis = GIS(ROOT, MEMBER, MEMBER_PASSWORD)
        gis.get_org_settings()
        gis.content_get(ROADS).move("Projects")
        u = urllib.parse.urlsplit(ROOT)
        paths = sorted({r["path"] for r in emulator("GET", "requests?unmatched=true")["requests"]})
        expected = {urllib.parse.urlsplit(k).path for k in probe(ROOT + "/sharing/rest/")}
        self.assertTrue(set(paths) <= expected, paths)


if __name__ == "__main__":
    unittest.main()
