package web

import (
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzPreviewLink: a preview link opens only as signed, naming what it
// was made for, and never panics; a sealed definition opens only for its
// own link.
func FuzzPreviewLink(f *testing.F) {
	p := newPreviewLinks([]byte("0123456789abcdef0123456789abcdef"))
	now := time.Unix(1_800_000_000, 0)
	good := p.link("adatum", "lunch", now.Add(time.Hour))
	def, err := p.sealDef(good, &survey.Survey{Title: "Lunch", Questions: []survey.Question{{ID: "q1", Text: "Why?", Type: survey.SimpleText}}})
	if err != nil {
		f.Fatal(err)
	}
	body, sig, _ := strings.Cut(good, ".")
	for _, s := range []string{good, "", ".", body, body + ".", "." + sig, strings.ToUpper(good), good + "x", body + "x." + sig,
		"eyJ0IjoiZmFicmlrYW0iLCJzIjoibHVuY2giLCJlIjo5OTk5OTk5OTk5fQ." + sig, def, strings.Repeat("a", 400) + "." + sig} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, link string) {
		target, err := p.open(link, now)
		if err == nil && (link != good || target != (previewTarget{Tenant: "adatum", Slug: "lunch", Until: now.Add(time.Hour).Unix()})) {
			t.Fatalf("opened %q as %+v, which was not made", link, target)
		}
		if sv, err := p.openDef(link, def); err == nil && (link != good || sv.Title != "Lunch") {
			t.Fatalf("the definition sealed for %q opened for %q", good, link)
		}
		// What opens was sealed here (the same definition sealed again,
		// in an earlier run, opens too: the key is the same).
		if sv, err := p.openDef(good, link); err == nil && sv.Title != "Lunch" {
			t.Fatalf("%q opened as a definition that was not sealed: %+v", link, sv)
		}
	})
}

// TestPreviewLinkExpiry: a link opens until its time, then says it
// expired; another key's link does not open.
func TestPreviewLinkExpiry(t *testing.T) {
	t.Parallel()
	p := newPreviewLinks([]byte("0123456789abcdef0123456789abcdef"))
	other := newPreviewLinks([]byte("another key, another instance..."))
	now := time.Unix(1_800_000_000, 0)
	link := p.link("adatum", "lunch", now.Add(time.Hour))
	if _, err := p.open(link, now.Add(time.Hour)); err != nil {
		t.Fatalf("at its last second: %v", err)
	}
	if _, err := p.open(link, now.Add(time.Hour+time.Second)); err != errPreviewExpired {
		t.Fatalf("past its time: %v", err)
	}
	if _, err := other.open(link, now); err != errPreviewLink {
		t.Fatalf("another key's link: %v", err)
	}
}
