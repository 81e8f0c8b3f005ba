"""The ArcGIS API for Python, unmodified, against portald through the pytest plugin: what a suite that
tests portal automation looks like. Each test gets the demo organizations as they were at the start
(fresh_portal), whatever the tests before it changed."""

import pytest
from arcgis.gis import GIS

import portald

BANNER = {"text": "Read-only until 18:00 UTC", "bgColor": "grey", "fontColor": "#FFFFFF", "enabled": True}


def sign_in(p, user):
    password, _ = p.users[user]
    return GIS(p.url, user, password, ca_bundles=p.ca_bundle)


def test_sign_in(fresh_portal):
    gis = sign_in(fresh_portal, "admin")
    assert gis.users.me.username == "admin"
    assert gis.properties["id"] == portald.ORG_ID
    # The sign-in went through the portal's own endpoints: the journal has them.
    ops = {r["operation"] for r in fresh_portal.journal()}
    assert "getPortal" in ops, ops


def test_settings(fresh_portal):
    gis = sign_in(fresh_portal, "admin")
    gis.org_settings = {"informationalBanner": BANNER}
    assert gis.org_settings["informationalBanner"] == BANNER
    # What the client sent, decoded: exactly this banner, once.
    [call] = fresh_portal.journal("updateSettings")
    assert call["params"]["informationalBanner"] == BANNER and call["caller"] == "admin"
    assert call["answer"]["success"]


def test_settings_are_fresh_in_the_next_test(fresh_portal):
    # test_settings set a banner; this test starts from the snapshot without it.
    gis = sign_in(fresh_portal, "admin")
    assert (gis.org_settings.get("informationalBanner") or {}).get("text") != BANNER["text"]


def test_categories(fresh_portal):
    gis = sign_in(fresh_portal, "admin")
    assert not gis.users.categories
    office = {"memberCategorySchema": [{"title": "Office Location", "categories": [{"title": "USA"}, {"title": "Canada"}]}]}
    gis.users.categories = office
    assert gis.users.categories == office["memberCategorySchema"]
    # A fourth level is refused by the portal, and the client raises it.
    with pytest.raises(Exception, match="Error Code: 400"):
        gis.users.categories = {"memberCategorySchema": [
            {"title": "A", "categories": [{"title": "B", "categories": [{"title": "C", "categories": [{"title": "D"}]}]}]}]}
    assert [c["answer"]["success"] for c in fresh_portal.journal("assignMemberCategorySchema")] == [True, False]


def test_move(fresh_portal):
    gis = sign_in(fresh_portal, "jsmith")
    roads = gis.content.get(portald.ROADS)
    assert roads["ownerFolder"] is None
    assert roads.move("Projects")["success"]
    assert roads["ownerFolder"] == portald.PROJECTS
    [call] = fresh_portal.journal("moveItem")
    assert call["params"]["itemId"] == portald.ROADS and call["params"]["folder"] == portald.PROJECTS


@pytest.mark.portal_fault("moveItem", error={"code": 500, "message": "Item already exists in target folder"})
def test_move_fails_once(fresh_portal):
    gis = sign_in(fresh_portal, "jsmith")
    roads = gis.content.get(portald.ROADS)
    # The fault answers the first move with the portal's error; the client raises it and nothing moved.
    with pytest.raises(Exception, match="Item already exists in target folder"):
        roads.move("Projects")
    assert gis.content.get(portald.ROADS)["ownerFolder"] is None
    # The rule fired once; the next move goes through.
    assert roads.move("Projects")["success"]
    first, second = fresh_portal.journal("moveItem")
    [rule] = fresh_portal.faults()
    assert first["fault"] == rule["id"] and first["answer"]["code"] == 500
    assert "fault" not in second and second["answer"]["success"]
    assert rule["fired"] == 1 and rule["remaining"] == 0
