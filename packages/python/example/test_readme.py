import pytest
from arcgis.gis import GIS

def test_archive_script(fresh_portal):            # the session's emulator, back to its start
    gis = GIS(fresh_portal.url, "jsmith", "jsmith-password", ca_bundles=fresh_portal.ca_bundle)
    gis.content.get(fresh_portal.ROADS).move("Archive")   # the ArcGIS API for Python calls moveItem
    [call] = fresh_portal.journal("moveItem")
    assert call["answer"]["success"]

@pytest.mark.portal_fault("moveItem", error={"code": 500, "message": "Item already exists in target folder"})
def test_archive_script_reports_failures(fresh_portal):
    gis = GIS(fresh_portal.url, "jsmith", "jsmith-password", ca_bundles=fresh_portal.ca_bundle)
    with pytest.raises(Exception, match="already exists"):
        gis.content.get(fresh_portal.ROADS).move("Archive")
