package server

import (
	"regexp"
	"time"
)

// Limits are the figures and lists the rules enforce that openapi.yaml
// states. The transport reads them from the embedded contract at start-up
// (server/api/limits.go), so editing the contract changes the rules; the
// rules hold no second copy.
type Limits struct {
	// Member category schema: MemberCategorySchema's x-max-depth (top-level
	// categories are level 1), x-max-nodes and x-min-nodes, and
	// CategoryNode.title's maxLength (in characters).
	CategoryMaxDepth, CategoryMaxNodes, CategoryMinNodes int
	CategoryTitleMaxLength                               int
	// MemberMaxCategories is CategoryPaths' x-max-per-member.
	MemberMaxCategories int
	// BatchMaxIDs is ItemIDList's x-max-ids (moveItems, deleteItems).
	BatchMaxIDs int
	// NoticeRequired and BannerRequired are the fields an enabled notice or
	// banner needs (x-required-when-enabled); NoticeButtons is the enum of
	// AccessNotice.buttons and FooterLinkTypes that of FooterMailLink.type.
	NoticeRequired, BannerRequired []string
	NoticeButtons, FooterLinkTypes []string
	// HostName is the pattern of httpsDomains' items, HostNameMaxLength their maxLength.
	HostName          *regexp.Regexp
	HostNameMaxLength int
	// PortalConfigMaxKeys and PortalConfigMaxBytes bound the stored
	// portalConfigProperties: keys, and bytes of their JSON in all.
	PortalConfigMaxKeys, PortalConfigMaxBytes int
	// TokenMaxExpiration is GenerateTokenForm.expiration's maximum.
	TokenMaxExpiration time.Duration
}
