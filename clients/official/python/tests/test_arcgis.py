"""The ArcGIS API for Python 2.4.3, unmodified, against portald: what a user's script does with it.

Each test is one thing a user does, run against each deployment of conftest.py, and reads its result back
through the client or the API.
"""

import re
import urllib.parse

import pytest
import requests
from arcgis.auth._auth._oauth import EsriOAuth2Auth
from arcgis.auth._auth._token import EsriBuiltInAuth, EsriGenTokenAuth

# The demo organization (server/seed/demo.yaml).
ADMIN, ADMIN_PASSWORD, ADMIN_TOKEN = "admin", "admin-password", "demo-admin-token"
MEMBER, MEMBER_PASSWORD, MEMBER_TOKEN = "jsmith", "jsmith-password", "demo-user-token"
VIEWER_TOKEN = "demo-viewer-token"  # user viewer, custom role "viewer"
ROADS = "93b54c8930ae46d9a00a7820cb3ebbd1"  # jsmith's, root folder
PARCELS = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"  # jsmith's, folder Projects
PROJECTS = "1a9ad803da604628b08c968ce602a231"
ARCHIVE = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"


def ops(calls):
    return [c["operation"] for c in calls]


# --- Sign-in ---------------------------------------------------------------------------------------------


def test_token(portal):
    gis = portal.gis(token=ADMIN_TOKEN)
    assert gis.properties.portalName == portal.portal_name
    assert gis.properties.isPortal is (not portal.online)
    me = gis.users.me
    assert (me.username, me.role, me.roleId) == (ADMIN, "org_admin", "org_admin")
    assert re.fullmatch(r"[0-9a-f]{32}", me.id)
    assert gis.properties.user.username == ADMIN


def test_calls_are_the_signed_in_user_s(portal):
    seq = portal.last_seq()
    gis = portal.gis(token=MEMBER_TOKEN)
    assert gis.users.me.username == MEMBER
    calls = portal.journal(seq)
    assert {"getInfo", "getPortal", "getMember"} <= set(ops(calls)), ops(calls)
    assert {c.get("caller") for c in calls} == {MEMBER}, calls


def test_api_key_custom_role(portal):
    # api_key= is sent as token= is; this member's custom role makes the client read portals/self/roles.
    seq = portal.last_seq()
    gis = portal.gis(api_key=VIEWER_TOKEN)
    me = gis.users.me
    assert (me.username, me.roleId, me.role) == ("viewer", "viewer", "viewer")
    assert "listRoles" in ops(portal.journal(seq))


def test_unknown_token_reads_the_portal_anonymously(portal):
    # The 498 says "Invalid token.": the client drops the token for that path and reads it anonymously.
    gis = portal.gis(token="not-a-token")
    assert gis.users.me is None
    assert gis.properties.portalName == portal.portal_name
    assert "user" not in gis.properties


def test_username_password_implicit_grant(portal):
    seq = portal.last_seq()
    gis = portal.gis(ADMIN, ADMIN_PASSWORD)
    auth = gis._con._session.auth
    assert isinstance(auth, EsriBuiltInAuth)
    assert gis.users.me.username == ADMIN
    assert gis.properties.user.username == ADMIN
    calls = portal.journal(seq)
    authorize = [c for c in calls if c["operation"] == "oauthAuthorize"]
    assert authorize, ops(calls)
    # The built-in app of the client, the implicit grant, and the first redirect URI it tries: the origin.
    p = authorize[-1]["params"]
    assert (p["client_id"], p["response_type"], p["redirect_uri"]) == ("pythonapi", "token", portal.origin), p
    assert "oauthSignIn" in ops(calls)
    # The token it got is the admin's: the API says so on its own.
    assert portal.api("GET", "community/self", gis._con.token, params={"f": "json"})["username"] == ADMIN


def test_wrong_password(portal):
    with pytest.raises(Exception) as e:
        portal.gis(MEMBER, "wrong-password")
    assert "Invalid username or password" in str(e.value), str(e.value)


def test_use_gen_token(portal):
    seq = portal.last_seq()
    gis = portal.gis(MEMBER, MEMBER_PASSWORD, use_gen_token=True)
    auth = gis._con._session.auth
    assert isinstance(auth, EsriGenTokenAuth)
    assert gis.users.me.username == MEMBER
    gen = [c for c in portal.journal(seq) if c["operation"] == "generateToken"]
    assert len(gen) == 1 and gen[0]["answer"]["status"] == 200, gen
    # The token is bound to the referer the client sent, "http": valid with it, refused without it.
    token = gis._con.token
    assert portal.api("GET", "community/self", token, referer="http", params={"f": "json"})["username"] == MEMBER
    assert portal.api("GET", "community/self", token, params={"f": "json"})["error"]["code"] == 498


def test_client_id(portal):
    # A registered app's client id: the code flow with the out-of-band redirect URI (oauth2/authorize, the
    # sign-in posted under the REST root, the approval page's code, oauth2/token), not pythonapi's implicit grant.
    created = portal.emulator("POST", "organizations", json={
        "id": "PyScriptOrg00001", "name": "Scripts",
        "users": [{"username": "py-admin", "password": "py-password", "role": "org_admin"}],
        "apps": [{"clientId": "py-script", "redirectUris": ["urn:ietf:wg:oauth:2.0:oob"]}]})
    assert created["success"] is True, created
    seq = portal.last_seq()
    gis = portal.gis("py-admin", "py-password", client_id="py-script")
    assert isinstance(gis._con._session.auth, EsriOAuth2Auth)
    assert gis.users.me.username == "py-admin"
    calls = portal.journal(seq)
    names = ops(calls)
    for op in ("oauthAuthorize", "oauthSignIn", "oauthApproval", "oauthToken"):
        assert op in names, names
    authorize = [c for c in calls if c["operation"] == "oauthAuthorize"][-1]["params"]
    assert (authorize["client_id"], authorize["response_type"]) == ("py-script", "code"), authorize
    assert [c["path"] for c in calls if c["operation"] == "oauthSignIn"] == [
        urllib.parse.urlsplit(portal.root).path + "/sharing/rest/oauth2/signin"]
    assert portal.api("GET", "community/self", gis._con.token, params={"f": "json"})["username"] == "py-admin"


def test_trust_through_requests_ca_bundle(portal, monkeypatch):
    from arcgis.gis import GIS

    # REQUESTS_CA_BUNDLE is read by requests only when the client trusts the environment.
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", portal.cert)
    gis = GIS(portal.root, token=MEMBER_TOKEN, trust_env=True)
    assert gis.users.me.username == MEMBER
    # Without the certificate the client refuses portald's.
    monkeypatch.delenv("REQUESTS_CA_BUNDLE")
    with pytest.raises(requests.exceptions.SSLError):
        GIS(portal.root, token=MEMBER_TOKEN)
    assert GIS(portal.root, token=MEMBER_TOKEN, verify_cert=False).users.me.username == MEMBER


# --- After sign-in ---------------------------------------------------------------------------------------


def test_version(portal):
    gis = portal.gis(token=MEMBER_TOKEN)
    assert ".".join(map(str, gis.version)) == gis.properties.currentVersion
    assert gis.version >= [10, 1]  # org_settings needs 7.4, the categories setter 10.1


def test_org_settings(portal):
    gis = portal.gis(ADMIN, ADMIN_PASSWORD)
    settings = gis.org_settings
    assert isinstance(settings, dict)
    assert "informationalBanner" not in settings
    banner = {"text": "Read-only until 18:00 UTC", "bgColor": "grey", "fontColor": "#FFFFFF", "enabled": True}
    gis.org_settings = {"informationalBanner": banner}
    assert gis.org_settings["informationalBanner"] == banner
    # Read back by another user of the organization, through the API.
    assert portal.api("GET", "portals/self/settings", MEMBER_TOKEN, params={"f": "json"})["informationalBanner"] == banner


def test_org_settings_notices(portal):
    gis = portal.gis(token=ADMIN_TOKEN)
    anon = {"title": "Anonymous Access Notice Title", "text": "Anonymous Access Notice Text",
            "buttons": "acceptAndDecline", "enabled": True}
    authd = {"title": "Authenticated Access Notice Title", "text": "Authenticated Access Notice Text",
             "buttons": "okOnly", "enabled": True}
    gis.org_settings = {"anonymousAccessNotice": anon, "authenticatedAccessNotice": authd}
    s = gis.org_settings
    assert (s["anonymousAccessNotice"], s["authenticatedAccessNotice"]) == (anon, authd)
    # clearEmptyFields: a notice sent as {} is cleared.
    gis.org_settings = {"anonymousAccessNotice": {}, "clearEmptyFields": True}
    s = gis.org_settings
    assert "anonymousAccessNotice" not in s or not s["anonymousAccessNotice"], s
    assert s["authenticatedAccessNotice"] == authd


def test_org_settings_portal_config_properties(portal):
    gis = portal.gis(token=ADMIN_TOKEN)
    props = {"httpsDomains": ["example.org", "maps.example.org"], "tokenExpiration": 120}
    if portal.online:
        # Self-hosted deployments only: ArcGIS Online refuses them.
        with pytest.raises(Exception) as e:
            gis.org_settings = {"portalConfigProperties": props}
        assert str(e.value).endswith("(Error Code: 400)"), str(e.value)
        assert not gis.org_settings.get("portalConfigProperties")
        return
    assert gis.org_settings["portalConfigProperties"] == {}
    gis.org_settings = {"portalConfigProperties": props}
    assert gis.org_settings["portalConfigProperties"] == props
    # Merged key by key; a key sent as None is removed.
    gis.org_settings = {"portalConfigProperties": {"tokenExpiration": None, "searchHostedEnabled": False}}
    assert gis.org_settings["portalConfigProperties"] == {"httpsDomains": props["httpsDomains"],
                                                           "searchHostedEnabled": False}


def test_org_settings_invalid_banner(portal):
    gis = portal.gis(token=ADMIN_TOKEN)
    bad = {"text": "x", "bgColor": "mauve-ish", "fontColor": "#FFFFFF", "enabled": True}
    with pytest.raises(Exception) as e:
        gis.org_settings = {"informationalBanner": bad}
    assert re.search(r"bgColor[\s\S]*\(Error Code: 400\)$", str(e.value)), str(e.value)
    assert "informationalBanner" not in gis.org_settings


def test_org_settings_needs_an_administrator(portal):
    gis = portal.gis(token=MEMBER_TOKEN)
    with pytest.raises(Exception) as e:
        gis.org_settings = {"informationalBanner": {"text": "Hi", "bgColor": "white", "fontColor": "black",
                                                    "enabled": True}}
    assert str(e.value).endswith("(Error Code: 403)"), str(e.value)


def test_categories(portal):
    gis = portal.gis(ADMIN, ADMIN_PASSWORD)
    assert gis.properties.hasMemberCategorySchema is False
    assert gis.users.categories is None
    office = {"memberCategorySchema": [{"title": "Office Location", "categories": [{"title": "USA"}, {"title": "Canada"}]}]}
    gis.users.categories = office
    assert gis.properties.hasMemberCategorySchema is True
    assert gis.users.categories == office["memberCategorySchema"]
    # With a schema, the client appends the first node's children to the new first node.
    gis.users.categories = {"memberCategorySchema": [{"title": "Department", "categories": [{"title": "Planning"}]}]}
    assert gis.users.categories == [{"title": "Department", "categories": [
        {"title": "Planning"}, {"title": "USA"}, {"title": "Canada"}]}]
    # Read back through the API.
    schema = portal.api("GET", "portals/self/memberCategorySchema", ADMIN_TOKEN, params={"f": "json"})
    assert schema["memberCategorySchema"][0]["title"] == "Department"
    gis.users.categories = None
    assert gis.properties.hasMemberCategorySchema is False
    assert gis.users.categories is None
    with pytest.raises(ValueError):
        gis.users.categories = None  # the None branch needs a schema


def test_categories_four_levels(portal):
    gis = portal.gis(token=ADMIN_TOKEN)
    deep = {"memberCategorySchema": [{"title": "Region", "categories": [
        {"title": "Europe", "categories": [{"title": "France", "categories": [{"title": "Paris"}]}]}]}]}
    with pytest.raises(Exception) as e:
        gis.users.categories = deep
    assert str(e.value).endswith("(Error Code: 400)"), str(e.value)
    assert gis.users.categories is None
    # Three levels are the most there may be.
    three = {"memberCategorySchema": [{"title": "Region", "categories": [
        {"title": "Europe", "categories": [{"title": "France"}]}]}]}
    gis.users.categories = three
    assert gis.users.categories == three["memberCategorySchema"]


def test_categories_list_form(portal):
    # The list form sends bare strings as categories; the documented schema takes objects: refused,
    # the field named.
    gis = portal.gis(token=ADMIN_TOKEN)
    with pytest.raises(Exception) as e:
        gis.users.categories = ["Office Location", "Department"]
    assert "memberCategorySchema" in str(e.value)
    assert str(e.value).endswith("(Error Code: 400)"), str(e.value)
    assert gis.properties.hasMemberCategorySchema is False


def test_item_move(portal):
    gis = portal.gis(MEMBER, MEMBER_PASSWORD)
    roads = gis.content.get(ROADS)
    assert roads.ownerFolder is None
    # By folder id, from the root.
    assert roads.move(PROJECTS) == {"success": True, "itemId": ROADS, "owner": MEMBER, "folder": PROJECTS}
    assert gis.content.get(ROADS).ownerFolder == PROJECTS
    # By title (any case), from a folder: the current folder is in the path.
    assert roads.move("archive") == {"success": True, "itemId": ROADS, "owner": MEMBER, "folder": ARCHIVE}
    assert gis.content.get(ROADS).ownerFolder == ARCHIVE
    # To the root.
    ret = roads.move("/")
    assert (ret["success"], ret["itemId"], ret["owner"]) == (True, ROADS, MEMBER)
    assert gis.content.get(ROADS).ownerFolder is None
    user = portal.api("GET", f"content/users/{MEMBER}", MEMBER_TOKEN, params={"f": "json"})
    assert ROADS in [i["id"] for i in user["items"]]


def test_item_move_refused(portal):
    gis = portal.gis(MEMBER, MEMBER_PASSWORD)
    parcels = gis.content.get(PARCELS)
    with pytest.raises(Exception) as e:
        parcels.move(PROJECTS)  # already there
    assert "(Error Code:" in str(e.value)
    assert gis.content.get(PARCELS).ownerFolder == PROJECTS
    assert gis.content.get("0" * 32) is None


def test_move_items_through_the_connection(portal):
    gis = portal.gis(MEMBER, MEMBER_PASSWORD)
    res = gis._con.post(f"content/users/{MEMBER}/moveItems", {"items": f"{ROADS},{PARCELS}", "folder": ARCHIVE})
    assert res == {"results": [{"itemId": ROADS, "success": True}, {"itemId": PARCELS, "success": True}]}
    assert gis.content.get(ROADS).ownerFolder == ARCHIVE
    assert gis.content.get(PARCELS).ownerFolder == ARCHIVE
    # A list is JSON-encoded; "/" is the root.
    res = gis._con.post(f"content/users/{MEMBER}/moveItems", {"items": [ROADS, PARCELS], "folder": "/"})
    assert [r["success"] for r in res["results"]] == [True, True]
    assert gis.content.get(ROADS).ownerFolder is None
    assert gis.content.get(PARCELS).ownerFolder is None


def test_only_the_probes_are_unmatched(portal):
    # What the client called that portald has no operation for: its start-up probes alone.
    seq = portal.last_seq()
    gis = portal.gis(MEMBER, MEMBER_PASSWORD)
    gis.org_settings
    gis.content.get(ROADS).move("Projects")
    u = urllib.parse.urlsplit(portal.root)
    first = u.path.strip("/") or "sharing"
    probes = {f"/{first}{p}" for p in ("/info", "/rest/info", "/sharing/rest/info", "/rest/services")}
    unmatched = {c["path"] for c in portal.journal(seq) if c["operation"] == "(unmatched)"}
    assert unmatched <= probes, unmatched
