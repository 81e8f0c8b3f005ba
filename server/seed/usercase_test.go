package seed

import (
	"strings"
	"testing"
)

// TestUsernamesDifferingOnlyByCase: two user names that differ only by
// case are refused: the portal's user names are unique whatever their case
// (its sign-in matches them exactly), and the sign-in throttle counts them
// as one.
func TestUsernamesDifferingOnlyByCase(t *testing.T) {
	f := Demo()
	u := f.Organizations[0].Users[0]
	u.Username, u.Tokens, u.Folders, u.Items = strings.ToUpper(u.Username), nil, nil, nil
	f.Organizations[0].Users = append(f.Organizations[0].Users, u)
	err := f.Validate()
	if err == nil || !strings.Contains(err.Error(), "only by case") {
		t.Errorf("Validate() = %v; want a user name differing only by case refused", err)
	}
}
