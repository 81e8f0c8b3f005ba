package seed

import (
	"strings"
	"testing"
)

// TestFolderAndItemTitles: the seed refuses what createFolder and addItem
// refuse, so that a seed that validates also loads: folder titles equal by
// the store's key (here NFC and NFD spellings of one word), and titles with
// a line break or a tab.
func TestFolderAndItemTitles(t *testing.T) {
	for _, c := range []struct {
		name, want string
		change     func(t *testing.T, f *File)
	}{
		{"folder titles equal but for normalisation", "duplicate folder title", func(t *testing.T, f *File) {
			u := &f.Organizations[0].Users[0]
			u.Folders = append(u.Folders, Folder{ID: "0f0f0f0f0f0f4f0f8f0f0f0f0f0f0f01", Title: "Caf\u00e9"},
				Folder{ID: "0f0f0f0f0f0f4f0f8f0f0f0f0f0f0f02", Title: "Cafe\u0301"})
		}},
		{"line break in a folder title", "holds a control character", func(t *testing.T, f *File) {
			u := &f.Organizations[0].Users[0]
			u.Folders = append(u.Folders, Folder{ID: "0f0f0f0f0f0f4f0f8f0f0f0f0f0f0f03", Title: "Field\nwork"})
		}},
		{"tab in an item title", "holds a control character", func(t *testing.T, f *File) {
			for i := range f.Organizations[0].Users {
				if u := &f.Organizations[0].Users[i]; len(u.Items) > 0 {
					u.Items[0].Title = "Roads\tmap"
					return
				}
			}
			t.Fatal("the demo seed has no item")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Demo()
			c.change(t, f)
			if err := f.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v; want an error mentioning %q", err, c.want)
			}
		})
	}
}
