package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestPasskeysRoundTrip: on both backends, an account's passkeys are
// added (named, at most store.MaxPasskeys, never twice), listed oldest
// first, noted when used, removed one by one; each counts as a second
// factor (TwoFactor.Any, the members list); an admin's reset removes
// them all; a ceremony's challenge serves once, even to two requests at
// the same moment; removing the account removes its passkeys.
func TestPasskeysRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st).WithSecrets(testSecrets(t))
		store.SetUserCost(us)
		const email, other = "ana@example.com", "bo@example.com"
		for _, e := range []string{email, other} {
			if _, err := us.AddMember(ctx, tenant, e, "correct horse battery", survey.Editor); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := us.AddPasskey(ctx, tenant, email, "  ", []byte("id-1"), []byte(`{"id":"aWQtMQ"}`)); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("a nameless passkey: %v", err)
		}
		first, err := us.AddPasskey(ctx, tenant, email, "Work laptop", []byte("id-1"), []byte(`{"id":"aWQtMQ"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := us.AddPasskey(ctx, tenant, email, "Again", []byte("id-1"), []byte(`{"id":"aWQtMQ"}`)); survey.ErrorCode(err) != survey.ECONFLICT {
			t.Fatalf("the same credential twice: %v", err)
		}
		if _, err := us.AddPasskey(ctx, tenant, "nobody@example.com", "Phone", []byte("id-9"), []byte(`{}`)); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a passkey of no account: %v", err)
		}
		if _, err := us.AddPasskey(ctx, tenant, email, "Phone", []byte("id-2"), []byte(`{"id":"aWQtMg"}`)); err != nil {
			t.Fatal(err)
		}
		keys, err := us.Passkeys(ctx, tenant, email)
		if err != nil || len(keys) != 2 || keys[0].Name != "Work laptop" || keys[1].Name != "Phone" || keys[0].ID != store.PasskeyID([]byte("id-1")) || string(keys[0].Credential) != `{"id":"aWQtMQ"}` {
			t.Fatalf("passkeys: %+v, %v", keys, err)
		}
		tf, err := us.TwoFactor(ctx, tenant, email)
		if err != nil || tf.On || tf.Passkeys != 2 || !tf.Any() {
			t.Fatalf("second factor by passkeys: %+v, %v", tf, err)
		}
		members, err := us.Members(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if m.TwoFactor != (m.Email == email) {
				t.Fatalf("members list: %+v", m)
			}
		}
		if err := us.UsedPasskey(ctx, tenant, email, first.ID, []byte(`{"id":"aWQtMQ","n":1}`)); err != nil {
			t.Fatal(err)
		}
		if keys, _ := us.Passkeys(ctx, tenant, email); keys[0].LastUsed.IsZero() || string(keys[0].Credential) != `{"id":"aWQtMQ","n":1}` {
			t.Fatalf("after use: %+v", keys[0])
		}
		// Another account cannot reach them.
		if _, err := us.RemovePasskey(ctx, tenant, other, first.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("removed by another account: %v", err)
		}
		if name, err := us.RemovePasskey(ctx, tenant, email, first.ID); err != nil || name != "Work laptop" {
			t.Fatalf("remove: %q, %v", name, err)
		}
		if _, err := us.RemovePasskey(ctx, tenant, email, first.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("removed twice: %v", err)
		}
		// The limit.
		for i := range store.MaxPasskeys - 1 {
			if _, err := us.AddPasskey(ctx, tenant, email, "Key", fmt.Appendf(nil, "more-%d", i), []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := us.AddPasskey(ctx, tenant, email, "One more", []byte("too-many"), []byte(`{}`)); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("past the limit: %v", err)
		}
		// An admin's reset takes them all.
		if err := us.DisableTwoFactor(ctx, tenant, email, "admin@example.com"); err != nil {
			t.Fatal(err)
		}
		if tf, err := us.TwoFactor(ctx, tenant, email); err != nil || tf.Any() || tf.ResetBy != "admin@example.com" {
			t.Fatalf("after the reset: %+v, %v", tf, err)
		}
		if err := us.DisableTwoFactor(ctx, tenant, email, "admin@example.com"); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("a reset of nothing: %v", err)
		}

		// A challenge serves once, to one of two racing requests.
		if _, err := us.TakePasskeyChallenge(ctx, tenant, email, store.PasskeyLogin); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("no challenge yet: %v", err)
		}
		if err := us.SetPasskeyChallenge(ctx, tenant, email, store.PasskeyLogin, []byte(`{"challenge":"a"}`)); err != nil {
			t.Fatal(err)
		}
		if err := us.SetPasskeyChallenge(ctx, tenant, email, store.PasskeyLogin, []byte(`{"challenge":"b"}`)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var got []string
		for range 2 {
			wg.Go(func() {
				if data, err := us.TakePasskeyChallenge(ctx, tenant, email, store.PasskeyLogin); err == nil {
					mu.Lock()
					got = append(got, string(data))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(got) != 1 || got[0] != `{"challenge":"b"}` {
			t.Fatalf("challenges taken: %q", got)
		}

		// The account goes, and its passkeys with it.
		if _, err := us.AddPasskey(ctx, tenant, other, "Phone", []byte("bo-1"), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if err := us.Remove(ctx, tenant, other); err != nil {
			t.Fatal(err)
		}
		if keys, err := us.Passkeys(ctx, tenant, other); err != nil || len(keys) != 0 {
			t.Fatalf("passkeys of a removed account: %+v, %v", keys, err)
		}
	})
}
