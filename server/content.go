package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ItemResult is the outcome for one requested item id.
type ItemResult struct {
	ItemID string
	Err    *Error // nil: success
}

// contentOwner resolves the user whose content a request names and checks
// the caller may act on it with one of privs.
func contentOwner(ctx context.Context, tx Tx, p Principal, username string, privs ...string) (User, error) {
	u, err := resolveUser(ctx, tx, username)
	if err != nil {
		if p.Anonymous() {
			return u, clone(ErrTokenRequired)
		}
		return u, err
	}
	return u, p.requireOwnerOr(u, privs...)
}

func checkBatch(ids []string, maxIDs int) error {
	if len(ids) == 0 {
		return Invalid("items: at least one item id is required")
	}
	if len(ids) > maxIDs {
		return Invalid(fmt.Sprintf("items: %d ids, the maximum is %d", len(ids), maxIDs))
	}
	// A JSON list can carry a NUL (\u0000) past the transport's text check;
	// no id holds one, and PostgreSQL cannot look one up.
	for i, id := range ids {
		if !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
			return Invalid(fmt.Sprintf("items[%d]: holds a NUL character or bytes that are not UTF-8", i))
		}
	}
	return nil
}

// isRoot reports whether a folder parameter names the root folder.
func isRoot(folder string) bool { f := strings.TrimSpace(folder); return f == "" || f == "/" }

// rootFolderID is what the ArcGIS API for Python sends as the root folder's
// id when it moves one item there (it names the root "Root Folder").
const rootFolderID = "Root Folder"

// destination returns the id of owner's folder that the parameter param
// names ("" for the root); an unknown folder is a 400 naming param.
func destination(ctx context.Context, tx Tx, owner User, param, folder string) (string, error) {
	if isRoot(folder) {
		return "", nil
	}
	f, err := tx.Folder(ctx, owner.Username, strings.TrimSpace(folder))
	if errors.Is(err, ErrNotFound) {
		return "", Invalid(fmt.Sprintf("%s: %s is not a folder of %s", param, folder, owner.Username))
	}
	return f.ID, err
}

// MovedItem is the answer of the per-item move.
type MovedItem struct {
	ItemID, Owner string
	FolderID      string // "" for the root
}

// MoveItem moves one of the user's items to folder (the per-item move), by
// the rules of MoveItems for one item; the item's failure is the request's.
// pathFolder, when not "", is the folder the request's path names, which
// must be one of the user's (the item may be in any).
func (s *Service) MoveItem(ctx context.Context, p Principal, username, pathFolder, id, folder string) (MovedItem, error) {
	if strings.TrimSpace(folder) == rootFolderID {
		folder = "/"
	}
	var out MovedItem
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivUpdateItems)
		if err != nil {
			return err
		}
		if pathFolder != "" {
			// A folder the path names, never the root ("/", " "): the
			// root has no segment of its own.
			if _, err := tx.Folder(ctx, owner.Username, pathFolder); errors.Is(err, ErrNotFound) {
				return Invalid(fmt.Sprintf("folderId: %s is not a folder of %s", pathFolder, owner.Username))
			} else if err != nil {
				return err
			}
		}
		dest, err := destination(ctx, tx, owner, "folder", folder)
		if err != nil {
			return err
		}
		results, moving, err := judgeItems(ctx, tx, owner, []string{id}, func(it Item, _ bool) *Error {
			if it.FolderID == dest {
				return &Error{Code: 500, Message: msgItemAlreadyThere}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if failure := results[0].Err; failure != nil {
			return failure
		}
		out = MovedItem{ItemID: id, Owner: owner.Username, FolderID: dest}
		return tx.SetItemsFolder(ctx, moving, dest, s.now())
	})
	return out, wrap("move item", err)
}

// MoveItems moves each of the user's items to folder ("/" or "" for the
// root), reporting each id in request order. The whole batch runs in one
// serializable transaction, so concurrent moves of the same item leave it in
// exactly one folder and every result agrees with some serial order. An
// unknown destination fails the whole request and moves nothing.
func (s *Service) MoveItems(ctx context.Context, p Principal, username string, ids []string, folder string) ([]ItemResult, error) {
	if err := checkBatch(ids, s.gates.Limits.BatchMaxIDs); err != nil {
		return nil, err
	}
	var results []ItemResult
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivUpdateItems)
		if err != nil {
			return err
		}
		dest, err := destination(ctx, tx, owner, "folder", folder)
		if err != nil {
			return err
		}
		var moving []string
		results, moving, err = judgeItems(ctx, tx, owner, ids, func(it Item, seen bool) *Error {
			if seen || it.FolderID == dest { // a repeated id was moved by its first occurrence
				return &Error{Code: 500, Message: msgItemAlreadyThere}
			}
			return nil
		})
		if err != nil || len(moving) == 0 {
			return err
		}
		return tx.SetItemsFolder(ctx, moving, dest, s.now())
	})
	return results, wrap("move items", err)
}

// DeleteItems deletes each of the user's items, reporting each id in order.
func (s *Service) DeleteItems(ctx context.Context, p Principal, username string, ids []string) ([]ItemResult, error) {
	if err := checkBatch(ids, s.gates.Limits.BatchMaxIDs); err != nil {
		return nil, err
	}
	var results []ItemResult
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivDeleteItems, PrivUpdateItems)
		if err != nil {
			return err
		}
		var deleting []string
		results, deleting, err = judgeItems(ctx, tx, owner, ids, func(it Item, seen bool) *Error {
			if seen { // deleted by its first occurrence
				return clone(ErrItemNotFound)
			}
			return nil
		})
		if err != nil || len(deleting) == 0 {
			return err
		}
		return tx.DeleteItems(ctx, deleting)
	})
	return results, wrap("delete items", err)
}

// judgeItems judges the ids of a batch in request order, reading their
// items at once: an unknown item, or one owner does not own, is CONT_0001;
// decide judges the others (nil: the operation applies), told whether the id
// already came earlier in the batch. It returns the results and the distinct
// ids the operation applies to.
func judgeItems(ctx context.Context, tx Tx, owner User, ids []string, decide func(it Item, seen bool) *Error) ([]ItemResult, []string, error) {
	items, err := tx.ItemsByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	results := make([]ItemResult, 0, len(ids))
	var accepted []string
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		it, found := items[id]
		// An error the emulator injects is reported, and the item left alone.
		failure := itemFault(ctx, id)
		switch {
		case failure != nil:
		case !found || it.Owner != owner.Username:
			failure = clone(ErrItemNotFound)
		default:
			if failure = decide(it, seen[id]); failure == nil {
				accepted = append(accepted, id)
			}
		}
		seen[id] = true
		results = append(results, ItemResult{ItemID: id, Err: failure})
	}
	return results, accepted, nil
}

// titleControl refuses a folder's or an item's title holding what a title,
// shown on one line, cannot: as the member categories' titles.
const titleControl = "title: " + NotOneLine

// CreateFolder creates a folder; titles are unique per user by TitleKey
// (case, spacing and look-alike characters ignored), as the store's index
// on the same key enforces.
func (s *Service) CreateFolder(ctx context.Context, p Principal, username, title string) (Folder, error) {
	title = strings.TrimSpace(title)
	if TitleKey(title) == "" { // nothing visible
		return Folder{}, Invalid("title: required")
	}
	if !OneLine(title) {
		return Folder{}, Invalid(titleControl)
	}
	var out Folder
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivUpdateItems)
		if err != nil {
			return err
		}
		folders, err := tx.Folders(ctx, owner.Username)
		if err != nil {
			return err
		}
		key := TitleKey(title)
		for _, f := range folders {
			if TitleKey(f.Title) == key {
				return Invalid(fmt.Sprintf("title: a folder named %s already exists", title))
			}
		}
		out = Folder{ID: s.newID(), Owner: owner.Username, Title: title, Created: s.created()}
		return tx.PutFolder(ctx, out)
	})
	return out, wrap("create folder", err)
}

// DeleteFolder deletes a folder and the items in it.
func (s *Service) DeleteFolder(ctx context.Context, p Principal, username, folderID string) (Folder, error) {
	var out Folder
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivDeleteItems, PrivUpdateItems)
		if err != nil {
			return err
		}
		f, err := tx.Folder(ctx, owner.Username, folderID)
		if errors.Is(err, ErrNotFound) {
			return notFound(msgFolderNotFound)
		} else if err != nil {
			return err
		}
		items, err := tx.Items(ctx, owner.Username, f.ID)
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.DeleteItem(ctx, it.ID); err != nil {
				return err
			}
		}
		out = f
		return tx.DeleteFolder(ctx, owner.Username, f.ID)
	})
	return out, wrap("delete folder", err)
}

// NewItem is addItem's input.
type NewItem struct {
	Title, Type, Description string
	Tags                     []string
}

// AddItem adds an item owned by the user in folderID ("" for the root).
func (s *Service) AddItem(ctx context.Context, p Principal, username, folderID string, in NewItem) (Item, error) {
	var problems []string
	if strings.TrimSpace(in.Title) == "" {
		problems = append(problems, "title: required")
	} else if !OneLine(in.Title) {
		problems = append(problems, titleControl)
	}
	if strings.TrimSpace(in.Type) == "" {
		problems = append(problems, "type: required")
	}
	if len(problems) > 0 {
		return Item{}, Invalid(problems...)
	}
	var out Item
	err := s.update(ctx, p, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivUpdateItems)
		if err != nil {
			return err
		}
		if folderID != "" {
			if _, err := tx.Folder(ctx, owner.Username, folderID); errors.Is(err, ErrNotFound) {
				return notFound(msgFolderNotFound)
			} else if err != nil {
				return err
			}
		}
		now := s.created()
		out = Item{ID: s.newID(), Owner: owner.Username, FolderID: folderID, Title: strings.TrimSpace(in.Title),
			Type: strings.TrimSpace(in.Type), Description: in.Description, Tags: cleanTags(in.Tags), Created: now, Modified: now}
		return tx.PutItem(ctx, out)
	})
	return out, wrap("add item", err)
}

func cleanTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Content is a page of one folder of a user's content.
type Content struct {
	Username                string
	Total, Start, Num, Next int
	CurrentFolder           *Folder // nil at the root
	Items                   []Item
	Folders                 []Folder // at the root only
}

// UserContent lists one folder ("" for the root) of a user's content.
func (s *Service) UserContent(ctx context.Context, p Principal, username, folderID string, page Page) (Content, error) {
	var out Content
	err := s.store.View(ctx, func(tx Tx) error {
		owner, err := contentOwner(ctx, tx, p, username, PrivViewItems, PrivUpdateItems)
		if err != nil {
			return err
		}
		out = Content{Username: owner.Username, Start: page.Start, Num: page.Num, Folders: []Folder{}}
		if folderID != "" {
			f, err := tx.Folder(ctx, owner.Username, folderID)
			if errors.Is(err, ErrNotFound) {
				return notFound(msgFolderNotFound)
			} else if err != nil {
				return err
			}
			out.CurrentFolder = &f
		} else if out.Folders, err = tx.Folders(ctx, owner.Username); err != nil {
			return err
		}
		items, err := tx.Items(ctx, owner.Username, folderID)
		if err != nil {
			return err
		}
		lo, hi, next := page.window(len(items))
		out.Total, out.Next, out.Items = len(items), next, items[lo:hi]
		return nil
	})
	return out, wrap("read user content", err)
}

// Item returns one item, to its owner or an administrator of its organization.
func (s *Service) Item(ctx context.Context, p Principal, id string) (Item, error) {
	var out Item
	err := s.store.View(ctx, func(tx Tx) error {
		if p.Anonymous() {
			return clone(ErrTokenRequired)
		}
		it, err := tx.Item(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return clone(ErrItemNotFound)
		} else if err != nil {
			return err
		}
		owner, err := tx.User(ctx, it.Owner)
		if err != nil {
			return err
		}
		if p.requireOwnerOr(owner, PrivViewItems, PrivUpdateItems) != nil {
			return clone(ErrItemNotFound) // inaccessible looks like absent, as the portal answers
		}
		out = it
		return nil
	})
	return out, wrap("read item", err)
}

// created returns the time to stamp on a new folder or item: now, at
// millisecond precision (what the store keeps), but always later than the
// last one this process stamped. Listings are ordered by creation time, then
// id; without this, things made in the same millisecond would be listed in
// the order of their random ids.
func (s *Service) created() time.Time {
	for {
		last := s.lastCreated.Load()
		next := max(s.now().UnixMilli(), last+1)
		if s.lastCreated.CompareAndSwap(last, next) {
			return time.UnixMilli(next).UTC()
		}
	}
}
