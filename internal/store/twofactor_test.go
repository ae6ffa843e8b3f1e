package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/twofactor"
)

func testSecrets(t *testing.T) *secret.Box {
	t.Helper()
	b, err := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTwoFactorRoundTrip: on both backends, two-step sign-in turned on
// keeps its secret sealed (never in the clear on the row), its recovery
// codes hashed, its last step and its reset note; a code serves once, a
// recovery code once, wrong codes are throttled, and a session that must
// enrol says so until EnrolDone.
func TestTwoFactorRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		var mu sync.Mutex
		now := time.Date(2026, 12, 6, 12, 0, 5, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		us := store.NewUserStore(st).WithSecrets(testSecrets(t)).WithClock(clock)
		store.SetUserCost(us)
		const email = "ana@example.com"
		if _, err := us.AddMember(ctx, tenant, email, "correct horse battery", survey.Editor); err != nil {
			t.Fatal(err)
		}
		if tf, err := us.TwoFactor(ctx, tenant, email); err != nil || tf.On {
			t.Fatalf("new account: %+v, %v", tf, err)
		}
		// Without a key it cannot be turned on.
		secretText, _ := twofactor.NewSecret()
		codes, _ := twofactor.NewRecoveryCodes()
		var hashes []string
		for _, c := range codes {
			hashes = append(hashes, twofactor.HashRecovery(c))
		}
		if err := store.NewUserStore(st).EnableTwoFactor(ctx, tenant, email, secretText, 1, hashes); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("without a key: %v", err)
		}
		// The enrolment's code (this step) is spent with it.
		code, _ := totp.GenerateCode(secretText, clock())
		step, ok := twofactor.Match(secretText, code, clock(), 0)
		if !ok {
			t.Fatal("the library's code does not match")
		}
		if err := us.EnableTwoFactor(ctx, tenant, email, secretText, step, hashes); err != nil {
			t.Fatal(err)
		}
		if err := us.EnableTwoFactor(ctx, tenant, email, secretText, step, hashes); survey.ErrorCode(err) != survey.ECONFLICT {
			t.Fatalf("on twice: %v", err)
		}
		// Read back through a new store over the same storage.
		again := store.NewUserStore(st).WithSecrets(testSecrets(t)).WithClock(clock)
		tf, err := again.TwoFactor(ctx, tenant, email)
		if err != nil || !tf.On || tf.RecoveryLeft != 10 || !tf.Since.Equal(clock()) {
			t.Fatalf("after enabling: %+v, %v", tf, err)
		}
		e, err := st.GetEntity(ctx, store.UsersTable, tenant, email)
		if err != nil {
			t.Fatal(err)
		}
		if s := e.String("TOTPSecret"); s == "" || s == secretText || containsAny(s, secretText) || e.Int("TOTPStep") != step {
			t.Fatalf("stored: secret %q, step %d", s, e.Int("TOTPStep"))
		}
		if members, _ := again.Members(ctx, tenant); len(members) != 1 || !members[0].TwoFactor {
			t.Fatalf("members: %+v", members)
		}
		// The enrolment's code does not serve again.
		if _, err := again.CheckSecondFactor(ctx, tenant, email, code); !store.IsBadCode(err) {
			t.Fatalf("enrolment code reused: %v", err)
		}
		advance(30 * time.Second)
		next, _ := totp.GenerateCode(secretText, clock())
		if r, err := again.CheckSecondFactor(ctx, tenant, email, next); err != nil || r.Recovery {
			t.Fatalf("next step's code: %+v, %v", r, err)
		}
		if _, err := again.CheckSecondFactor(ctx, tenant, email, next); !store.IsBadCode(err) {
			t.Fatalf("replayed: %v", err)
		}
		// A recovery code serves once.
		if r, err := again.CheckSecondFactor(ctx, tenant, email, codes[3]); err != nil || !r.Recovery || r.RecoveryLeft != 9 {
			t.Fatalf("recovery code: %+v, %v", r, err)
		}
		if _, err := again.CheckSecondFactor(ctx, tenant, email, codes[3]); !store.IsBadCode(err) {
			t.Fatalf("recovery code reused: %v", err)
		}
		// Wrong codes: after FreeCodeFailures in a row, the right one
		// waits too.
		for range store.FreeCodeFailures + 1 {
			if _, err := again.CheckSecondFactor(ctx, tenant, email, "000000x"); !store.IsBadCode(err) {
				t.Fatalf("wrong code: %v", err)
			}
		}
		// (the next step's code: allowed by the skew, not used yet)
		right, _ := totp.GenerateCode(secretText, clock().Add(30*time.Second))
		if _, err := again.CheckSecondFactor(ctx, tenant, email, right); !store.IsBadCode(err) {
			t.Fatalf("throttled right code: %v", err)
		}
		advance(survey.MaxThrottleDelay)
		right, _ = totp.GenerateCode(secretText, clock())
		if _, err := again.CheckSecondFactor(ctx, tenant, email, right); err != nil {
			t.Fatalf("right code after the wait: %v", err)
		}
		// An admin's reset is noted.
		if err := again.DisableTwoFactor(ctx, tenant, email, "boss@example.com"); err != nil {
			t.Fatal(err)
		}
		tf, err = store.NewUserStore(st).TwoFactor(ctx, tenant, email)
		if err != nil || tf.On || tf.ResetBy != "boss@example.com" || !tf.ResetOn.Equal(clock()) || tf.RecoveryLeft != 0 {
			t.Fatalf("after the reset: %+v, %v", tf, err)
		}
		if _, err := again.CheckSecondFactor(ctx, tenant, email, codes[4]); !store.IsBadCode(err) {
			t.Fatalf("recovery code after the reset: %v", err)
		}
		if err := again.DisableTwoFactor(ctx, tenant, email, "boss@example.com"); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("reset of none: %v", err)
		}
		// A session that must enrol.
		token, err := us.NewEnrolSession(ctx, &survey.User{Tenant: tenant, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		if s, err := us.Session(ctx, token); err != nil || !s.MustEnrol || s.Role != survey.Editor {
			t.Fatalf("enrol session: %+v, %v", s, err)
		}
		if err := us.EnrolDone(ctx, token); err != nil {
			t.Fatal(err)
		}
		if s, err := us.Session(ctx, token); err != nil || s.MustEnrol {
			t.Fatalf("after EnrolDone: %+v, %v", s, err)
		}
	})
}

// TestTwoFactorCodeOnceUnderRace: ten requests with the same right code
// at once (two instances, say) sign in once: each check writes If-Match,
// and the losers check again against the step the winner recorded.
func TestTwoFactorCodeOnceUnderRace(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		now := time.Date(2026, 12, 6, 12, 0, 5, 0, time.UTC)
		us := store.NewUserStore(st).WithSecrets(testSecrets(t)).WithClock(func() time.Time { return now })
		store.SetUserCost(us)
		const email = "ana@example.com"
		if _, err := us.AddMember(ctx, tenant, email, "correct horse battery", survey.Editor); err != nil {
			t.Fatal(err)
		}
		key, _ := twofactor.NewSecret()
		if err := us.EnableTwoFactor(ctx, tenant, email, key, twofactor.Step(now)-1, []string{twofactor.HashRecovery("abcd-efgh-jkmn")}); err != nil {
			t.Fatal(err)
		}
		code, _ := totp.GenerateCode(key, now)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, bad := 0, 0
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := us.CheckSecondFactor(ctx, tenant, email, code)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case store.IsBadCode(err):
					bad++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if ok != 1 || bad != 9 {
			t.Fatalf("the same code ten times at once: %d accepted, %d refused; want 1 and 9", ok, bad)
		}
	})
}

func containsAny(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
