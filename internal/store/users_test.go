package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// throttledUsers returns a UserStore with a clock the test moves, and a
// count of the passwords it checked against an account's hash.
func throttledUsers(t *testing.T, st storage.Storage) (*store.UserStore, *atomic.Int64, func(time.Duration)) {
	t.Helper()
	us := store.NewUserStore(st)
	store.SetUserCost(us) // what is counted is which passwords are checked, not how long
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	store.SetUserClock(us, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	checked := &atomic.Int64{}
	store.SetPasswordCheck(us, func(hash, password []byte) error {
		checked.Add(1)
		return bcrypt.CompareHashAndPassword(hash, password)
	})
	return us, checked, func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
}

// TestConcurrentGuessesCounted: 50 wrong guesses at once check at most
// FreeSignInFailures passwords (each attempt is counted before its
// password is checked, retrying on an ETag conflict); the others are
// refused unchecked, with the same error as a wrong password.
func TestConcurrentGuessesCounted(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us, checked, _ := throttledUsers(t, st)
		if _, err := us.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := us.Authenticate(ctx, tenant, "ana@example.com", "guess number "+string(rune('a'+i%26)))
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if survey.ErrorCode(err) != survey.EFORBIDDEN || survey.ErrorMessage(err) != survey.SignInFailureMessage {
				t.Fatalf("a guess gave %v", err)
			}
		}
		if n := checked.Load(); n > store.FreeSignInFailures {
			t.Fatalf("%d passwords checked of 50 concurrent guesses, want at most %d", n, store.FreeSignInFailures)
		}
	})
}

// TestThrottleGrowsAndRealUserPasses: after the free failures each attempt
// waits longer (1 s, 2 s, 4 s …, at most 15 min), refused unchecked while
// it waits, even with the right password; once the wait is over the real
// user signs in, and that resets the count.
func TestThrottleGrowsAndRealUserPasses(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us, checked, advance := throttledUsers(t, st)
		if _, err := us.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		wrong := func() error { _, err := us.Authenticate(ctx, tenant, "ana@example.com", "wrong password"); return err }
		right := func() error {
			_, err := us.Authenticate(ctx, tenant, "ana@example.com", "correct horse battery")
			return err
		}
		for range store.FreeSignInFailures {
			wantCode(t, "free failure", wrong(), survey.EFORBIDDEN)
		}
		for failures := int64(store.FreeSignInFailures); failures < store.FreeSignInFailures+12; failures++ {
			delay := survey.ThrottleDelay(failures, store.FreeSignInFailures)
			before := checked.Load()
			advance(delay - time.Millisecond)
			err := right()
			if survey.ErrorCode(err) != survey.EFORBIDDEN || survey.ErrorMessage(err) != survey.SignInFailureMessage || checked.Load() != before {
				t.Fatalf("after %d failures, %v early: %v, %d passwords checked", failures, delay, err, checked.Load()-before)
			}
			advance(time.Millisecond)
			wantCode(t, "a guess once the wait is over", wrong(), survey.EFORBIDDEN)
			if checked.Load() != before+1 {
				t.Fatalf("after %d failures and %v, the guess was not checked", failures, delay)
			}
		}
		if d := survey.ThrottleDelay(store.FreeSignInFailures+12, store.FreeSignInFailures); d != survey.MaxThrottleDelay {
			t.Fatalf("delay = %v, want the cap", d)
		}
		advance(survey.MaxThrottleDelay)
		if err := right(); err != nil {
			t.Fatalf("the real user after the wait: %v", err)
		}
		// The count is back to zero: five more failures are free.
		for range store.FreeSignInFailures {
			wantCode(t, "free failure", wrong(), survey.EFORBIDDEN)
		}
		if err := right(); err == nil {
			t.Fatal("no wait after five more failures")
		}
	})
}

// TestSignInAnswersAlike: unknown account, wrong password and throttled
// attempt give the same error.
func TestSignInAnswersAlike(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us, _, _ := throttledUsers(t, st)
		if _, err := us.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		_, unknown := us.Authenticate(ctx, tenant, "nobody@example.com", "correct horse battery")
		_, wrong := us.Authenticate(ctx, tenant, "ana@example.com", "wrong password")
		for range store.FreeSignInFailures {
			_, _ = us.Authenticate(ctx, tenant, "ana@example.com", "wrong password")
		}
		_, throttled := us.Authenticate(ctx, tenant, "ana@example.com", "correct horse battery")
		for name, err := range map[string]error{"unknown": unknown, "wrong": wrong, "throttled": throttled} {
			if survey.ErrorCode(err) != survey.EFORBIDDEN || survey.ErrorMessage(err) != survey.SignInFailureMessage {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

// TestSessionIdleAndEnd: a session ends after SessionIdle unused (its last
// use noted at most every few minutes) and at SessionTTL however used;
// EndSessions ends an account's sessions but one; Remove deletes the
// account and ends its sessions; a session of the old format (no last
// use) is ended.
func TestSessionIdleAndEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us, _, advance := throttledUsers(t, st)
		ana := &survey.User{Tenant: tenant, Email: "ana@example.com"}
		if _, err := us.Add(ctx, tenant, ana.Email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		live := func(token string) bool {
			t.Helper()
			_, err := us.Session(ctx, token)
			if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
				t.Fatal(err)
			}
			return err == nil
		}
		newSession := func(u *survey.User) string {
			t.Helper()
			tok, err := us.NewSession(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		idle, used := newSession(ana), newSession(ana)
		for range 2 {
			advance(store.SessionIdle / 2)
			if !live(used) {
				t.Fatal("a session in use ended")
			}
		}
		if live(idle) {
			t.Fatalf("a session idle for %v is live", store.SessionIdle)
		}
		for i := time.Duration(0); i < store.SessionTTL; i += store.SessionIdle / 2 {
			advance(store.SessionIdle / 2)
			live(used)
		}
		if live(used) {
			t.Fatalf("a session used often is live after %v", store.SessionTTL)
		}

		here, other := newSession(ana), newSession(ana)
		bob := &survey.User{Tenant: tenant, Email: "bob@example.com"}
		bobs := newSession(bob)
		if err := us.EndSessions(ctx, tenant, ana.Email, here); err != nil {
			t.Fatal(err)
		}
		if !live(here) || live(other) || !live(bobs) {
			t.Fatalf("after EndSessions: kept %v, other %v, another account's %v", live(here), live(other), live(bobs))
		}
		if err := us.Remove(ctx, tenant, "ANA@example.com"); err != nil {
			t.Fatal(err)
		}
		if live(here) || !live(bobs) {
			t.Fatal("Remove left the account's session, or ended another's")
		}
		if _, err := us.Authenticate(ctx, tenant, ana.Email, "correct horse battery"); err == nil {
			t.Fatal("a removed account signs in")
		}
		wantCode(t, "Remove again", us.Remove(ctx, tenant, ana.Email), survey.ENOTFOUND)
		page, err := st.QueryPartition(ctx, store.UserSessionsTable, tenant, storage.Query{RowKeyFrom: "ana@", RowKeyTo: "ana@~"})
		if err != nil || len(page.Entities) != 0 {
			t.Fatalf("the removed account's session list: %d rows, %v", len(page.Entities), err)
		}

		// A session of the old format.
		old := newSession(bob)
		sum := sha256.Sum256([]byte(old))
		h := hex.EncodeToString(sum[:])
		if _, err := st.UpsertEntity(ctx, store.SessionsTable, storage.Entity{PartitionKey: h[:2], RowKey: h, Properties: map[string]any{
			"Tenant": tenant, "Email": bob.Email, "Expires": time.Now().Add(time.Hour).UTC()}}); err != nil {
			t.Fatal(err)
		}
		if live(old) {
			t.Fatal("a session of the old format is live")
		}
	})
}

// TestPasswordHashCost: a UserStore hashes passwords at bcrypt's default
// cost (the other tests of this package hash at the lowest, for speed).
func TestPasswordHashCost(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewUserStore(st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	e, err := st.GetEntity(ctx, store.UsersTable, "adatum", "ana@adatum.example")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(e.String("PasswordHash"))); err != nil || cost != bcrypt.DefaultCost {
		t.Fatalf("password hashed at cost %d (%v), want %d", cost, err, bcrypt.DefaultCost)
	}
}
