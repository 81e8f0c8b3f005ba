"""The reads a script makes around the three operations, through the ArcGIS API for Python 2.4.3, unmodified:
the signed-in user's email and groups, content and group searches, and the portal's helper services.

Each runs against every deployment of conftest.py, from the demo organization (server/seed/demo.yaml): jsmith
owns Roads (public), Parcels (private) and Hydrants (org access), owns the group Planning (org) and is a member of
Open Data (public); admin owns Field Crews (private), which jdoe administers.
"""

from arcgis.gis import GIS

ADMIN_TOKEN = "demo-admin-token"
MEMBER, MEMBER_TOKEN = "jsmith", "demo-user-token"
PUBLISHER_TOKEN = "demo-publisher-token"  # jdoe, org_publisher
OTHER_USER_TOKEN = "demo-other-user-token"  # otheruser, of the other organization
ROADS = "93b54c8930ae46d9a00a7820cb3ebbd1"


def titles(things):
    return sorted(t.title for t in things)


def test_me_email_and_groups(portal):
    me = portal.gis(token=MEMBER_TOKEN).users.me
    assert me.email == "jsmith@example.org"
    assert (me.firstName, me.lastName, me.provider) == ("Jane", "Smith", "arcgis")
    groups = me.groups
    # Each Group is read again by its id (community/groups/<id>) when its title is asked for.
    assert titles(groups) == ["Open Data", "Planning"]
    assert sorted((g.title, g.owner, g.access) for g in groups) == [("Open Data", "admin", "public"),
                                                                     ("Planning", MEMBER, "org")]


def test_another_member_seen_by_a_member_and_by_the_administrator(portal):
    jdoe = portal.gis(token=MEMBER_TOKEN).users.get("jdoe")
    assert "email" not in jdoe
    assert titles(jdoe.groups) == ["Planning"]  # Field Crews is private, and jsmith is not in it
    jdoe = portal.gis(token=ADMIN_TOKEN).users.get("jdoe")
    assert jdoe.email == "jdoe@example.org"
    assert titles(jdoe.groups) == ["Field Crews", "Planning"]


def test_content_search_by_owner(portal):
    items = portal.gis(token=MEMBER_TOKEN).content.search(f"owner:{MEMBER}")
    assert titles(items) == ["Hydrants", "Parcels", "Roads"]
    assert {i.id: i.access for i in items}[ROADS] == "public"


def test_content_search_by_type_and_title(portal):
    gis = portal.gis(token=MEMBER_TOKEN)
    # item_type="Web Map" adds (type:"web map" NOT type:"web mapping application").
    assert titles(gis.content.search(f"owner:{MEMBER}", item_type="Web Map")) == ["Parcels"]
    assert titles(gis.content.search('title:"Hydrants"')) == ["Hydrants"]
    assert titles(gis.content.search(f"owner:{MEMBER}", sort_field="title", sort_order="asc", max_items=2)) == [
        "Hydrants", "Parcels"]


def test_content_search_sees_what_the_caller_may(portal):
    # A publisher of the organization: not jsmith's private item. Anonymously: the public one only.
    assert titles(portal.gis(token=PUBLISHER_TOKEN).content.search(f"owner:{MEMBER}")) == ["Hydrants", "Roads"]
    assert titles(GIS(portal.root, ca_bundles=portal.cert).content.search(f"owner:{MEMBER}")) == ["Roads"]
    # Another organization's user, within its own organization (the client adds accountid): none of them.
    other = portal.gis(token=OTHER_USER_TOKEN)
    assert titles(other.content.search(f"owner:{MEMBER}")) == []
    assert titles(other.content.search(f"owner:{MEMBER}", outside_org=True)) == ["Roads"]


def test_groups_search(portal):
    assert titles(portal.gis(token=MEMBER_TOKEN).groups.search()) == ["Open Data", "Planning"]
    assert titles(portal.gis(token=ADMIN_TOKEN).groups.search()) == ["Field Crews", "Open Data", "Planning"]
    assert titles(portal.gis(token=MEMBER_TOKEN).groups.search("title:planning")) == ["Planning"]
    everyone = titles(portal.gis(token=MEMBER_TOKEN).groups.search(outside_org=True))
    assert everyone == ["Open Data", "Other Public", "Planning"]


def test_helper_services(portal):
    gis = portal.gis(token=MEMBER_TOKEN)
    helpers = gis.properties.helperServices
    assert helpers.geometry.url.startswith("https://")
    assert helpers.geocode[0]["url"].startswith("https://")
    assert gis.properties.defaultExtent.spatialReference.wkid == 102100
    assert gis.properties.maxTokenExpirationMinutes == 20160
