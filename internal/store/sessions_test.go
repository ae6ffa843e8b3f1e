package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestSessionsListAndEnd: on both backends, an account's sessions list
// where each was started (device, address), when, and when last used
// (noted at most every few minutes), newest use first; one ends by its
// ID, only for its own account; a session started with a tenant's idle
// time ends after it, not after store.SessionIdle.
func TestSessionsListAndEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us, _, advance := throttledUsers(t, st)
		ana := &survey.User{Tenant: tenant, Email: "ana@example.com"}
		bob := &survey.User{Tenant: tenant, Email: "bob@example.com"}
		for _, u := range []*survey.User{ana, bob} {
			if _, err := us.Add(ctx, tenant, u.Email, "correct horse battery"); err != nil {
				t.Fatal(err)
			}
		}
		start := func(u *survey.User, info store.SessionInfo) string {
			t.Helper()
			tok, err := us.NewSession(store.WithSessionInfo(ctx, info), u)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		laptop := start(ana, store.SessionInfo{Device: "Firefox on Windows", IP: "203.0.113.4"})
		advance(10 * time.Minute)
		phone := start(ana, store.SessionInfo{Device: "Safari on iPhone", IP: "2001:db8::1", Idle: time.Hour})
		bobs := start(bob, store.SessionInfo{Device: "Chrome on Linux"})
		advance(10 * time.Minute)
		s, err := us.Session(ctx, laptop) // noted: more than five minutes since
		if err != nil {
			t.Fatal(err)
		}
		list, err := us.Sessions(ctx, tenant, "ANA@example.com")
		if err != nil || len(list) != 2 {
			t.Fatalf("sessions: %+v, %v", list, err)
		}
		if l := list[0]; l.ID != s.ID || l.Device != "Firefox on Windows" || l.IP != "203.0.113.4" || l.Started.IsZero() || l.LastSeen.Before(l.Started.Add(19*time.Minute)) {
			t.Errorf("the session used last: %+v", l)
		}
		if p := list[1]; p.Device != "Safari on iPhone" || p.IP != "2001:db8::1" {
			t.Errorf("the other session: %+v", p)
		}
		// Bob cannot end Ana's session; Ana can.
		if err := us.EndSessionID(ctx, tenant, bob.Email, list[1].ID); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("ended by another account: %v", err)
		}
		if err := us.EndSessionID(ctx, tenant, ana.Email, "not an id"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a made-up id: %v", err)
		}
		if _, err := us.Session(ctx, phone); err != nil {
			t.Fatal(err)
		}
		if err := us.EndSessionID(ctx, tenant, ana.Email, list[1].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := us.Session(ctx, phone); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("an ended session: %v", err)
		}
		// The hour of idle time the phone's session had: another
		// started so ends after an hour unused, the laptop's (the
		// default) does not.
		short := start(ana, store.SessionInfo{Idle: time.Hour})
		advance(61 * time.Minute)
		if _, err := us.Session(ctx, short); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a session idle past its tenant's hour: %v", err)
		}
		if _, err := us.Session(ctx, laptop); err != nil {
			t.Fatalf("a session idle an hour, of the default idle time: %v", err)
		}
		if _, err := us.Session(ctx, bobs); err != nil {
			t.Fatal(err)
		}
		if list, _ := us.Sessions(ctx, tenant, ana.Email); len(list) != 1 || list[0].Device != "Firefox on Windows" {
			t.Fatalf("sessions at the end: %+v", list)
		}
	})
}

// TestSessionCost: what a signed-in request costs to check its session,
// counted at the storage: one point read each, and one write to note
// the last use at most every five minutes (none per request).
func TestSessionCost(t *testing.T) {
	st := counting.New(backends.Local(t))
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	us, _, advance := throttledUsers(t, st)
	tenant := newTenant()
	u := &survey.User{Tenant: tenant, Email: "ana@example.com"}
	if _, err := us.Add(ctx, tenant, u.Email, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	token, err := us.NewSession(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	calls := func(kind string) int64 {
		for _, c := range st.Snapshot() {
			if c.Op.Service == "table" && c.Op.Kind == kind {
				return c.Calls
			}
		}
		return 0
	}
	gets, updates, total := calls("get"), calls("update"), st.Total("")
	const requests = 100
	for range requests {
		advance(2 * time.Second) // 100 requests in 200 s: within five minutes
		if _, err := us.Session(ctx, token); err != nil {
			t.Fatal(err)
		}
	}
	if g, u, all := calls("get")-gets, calls("update")-updates, st.Total("")-total; g != requests || u != 0 || all != requests {
		t.Fatalf("%d requests: %d reads, %d writes, %d calls in all; want %d, 0, %d", requests, g, u, all, requests, requests)
	}
	advance(5 * time.Minute)
	if _, err := us.Session(ctx, token); err != nil {
		t.Fatal(err)
	}
	if u := calls("update") - updates; u != 1 {
		t.Fatalf("after five minutes, %d writes; want 1", u)
	}
}
