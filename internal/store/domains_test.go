package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDomains: a tenant claims a host (not yet routed), proves it (then
// the host names it), cannot claim a second one or another tenant's;
// a bad host is refused beside the field with nothing kept; removing the
// domain stops the routing at once and frees the host for another.
func TestDomains(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		ds := store.NewDomainStore(st)
		other := newTenant()
		host := "surveys." + key + ".example"

		_, err := ds.Get(ctx, key)
		wantCode(t, "no domain yet", err, survey.ENOTFOUND)
		for _, bad := range []string{"", "localhost", "203.0.113.9", "surveys.adatum.example:8443", "a_b.example", "-x.example", "surveys.adatum.example/path"} {
			_, err := ds.Claim(ctx, key, bad)
			wantCode(t, "claim "+bad, err, survey.EINVALID)
			if e, ok := err.(*survey.Error); !ok || e.Fields["domain"] == "" {
				t.Errorf("claim %q: %v, want a message beside the domain field", bad, err)
			}
		}
		_, err = ds.Get(ctx, key)
		wantCode(t, "after refused claims", err, survey.ENOTFOUND)

		d, err := ds.Claim(ctx, key, "  HTTPS://Surveys."+key+".Example./ ")
		if err != nil {
			t.Fatal(err)
		}
		if d.Host != host || d.Verified || len(d.Token) != 32 || d.ChallengeName() != "_surveys-challenge."+host || d.TokenPath() != "/.well-known/surveys-domain/"+d.Token {
			t.Fatalf("claimed %+v", d)
		}
		again, err := ds.Claim(ctx, key, host)
		if err != nil || again.Token != d.Token {
			t.Fatalf("claim again = %+v, %v; want the same claim", again, err)
		}
		_, err = ds.Lookup(ctx, host)
		wantCode(t, "lookup before proof", err, survey.ENOTFOUND)
		_, err = ds.Claim(ctx, key, "www."+key+".example")
		wantCode(t, "a second domain", err, survey.EINVALID)
		_, err = ds.Claim(ctx, other, host)
		wantCode(t, "another tenant's claim", err, survey.ECONFLICT)
		_, err = ds.Get(ctx, other)
		wantCode(t, "the refused tenant keeps nothing", err, survey.ENOTFOUND)

		v, err := ds.MarkVerified(ctx, key)
		if err != nil || !v.Verified || v.VerifiedOn.IsZero() {
			t.Fatalf("verified = %+v, %v", v, err)
		}
		if got, err := ds.Lookup(ctx, host); err != nil || got != key {
			t.Fatalf("lookup = %q, %v; want %s", got, err, key)
		}
		if got, err := ds.Get(ctx, key); err != nil || !got.Verified || got.Host != host {
			t.Fatalf("get = %+v, %v", got, err)
		}
		_, err = ds.Lookup(ctx, "SURVEYS."+key+".example")
		wantCode(t, "lookup of a host not written as ParseDomain writes it", err, survey.ENOTFOUND)

		removed, err := ds.Remove(ctx, key)
		if err != nil || removed != host {
			t.Fatalf("remove = %q, %v", removed, err)
		}
		_, err = ds.Lookup(ctx, host)
		wantCode(t, "lookup after removal", err, survey.ENOTFOUND)
		_, err = ds.Get(ctx, key)
		wantCode(t, "get after removal", err, survey.ENOTFOUND)
		_, err = ds.Remove(ctx, key)
		wantCode(t, "remove twice", err, survey.ENOTFOUND)
		if d, err := ds.Claim(ctx, other, host); err != nil || d.Tenant != other {
			t.Fatalf("the freed host claimed by another: %+v, %v", d, err)
		}
	})
}

// TestDomainClaimRace: of tenants claiming one host at once, exactly one
// holds it; the others keep no row.
func TestDomainClaimRace(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		ds := store.NewDomainStore(st)
		host := "race." + key + ".example"
		tenants := []string{key, newTenant(), newTenant(), newTenant()}
		errs := make([]error, len(tenants))
		var wg sync.WaitGroup
		for i, k := range tenants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = ds.Claim(ctx, k, host)
			}()
		}
		wg.Wait()
		won := 0
		for i, k := range tenants {
			d, err := ds.Get(ctx, k)
			switch {
			case errs[i] == nil:
				won++
				if err != nil || d.Host != host {
					t.Errorf("winner %s: %+v, %v", k, d, err)
				}
				if _, err := ds.MarkVerified(ctx, k); err != nil {
					t.Errorf("winner %s verifies: %v", k, err)
				}
			default:
				wantCode(t, "loser "+k, errs[i], survey.ECONFLICT)
				wantCode(t, "loser's row", err, survey.ENOTFOUND)
			}
		}
		if won != 1 {
			t.Fatalf("%d tenants hold %s, want 1 (%v)", won, host, errs)
		}
	})
}

// TestDomainClaimExpires: a claim nobody proved within store.ClaimExpiry
// may be taken by another tenant; the first can then neither verify nor,
// by removing its own, take the host from the second.
func TestDomainClaimExpires(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		now := time.Now()
		clock := func() time.Time { return now }
		ds := store.NewDomainStore(st).WithClock(clock)
		other := newTenant()
		host := "squat." + key + ".example"
		if _, err := ds.Claim(ctx, key, host); err != nil {
			t.Fatal(err)
		}
		now = now.Add(store.ClaimExpiry - time.Minute)
		_, err := ds.Claim(ctx, other, host)
		wantCode(t, "a fresh claim", err, survey.ECONFLICT)
		now = now.Add(2 * time.Minute)
		if _, err := ds.Claim(ctx, other, host); err != nil {
			t.Fatalf("an expired claim taken over: %v", err)
		}
		_, err = ds.MarkVerified(ctx, key)
		wantCode(t, "the first verifies", err, survey.ECONFLICT)
		if _, err := ds.Remove(ctx, key); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.MarkVerified(ctx, other); err != nil {
			t.Fatal(err)
		}
		if got, err := ds.Lookup(ctx, host); err != nil || got != other {
			t.Fatalf("lookup = %q, %v; want %s", got, err, other)
		}
		// A verified host is never taken over, however old.
		now = now.Add(10 * store.ClaimExpiry)
		_, err = ds.Claim(ctx, key, host)
		wantCode(t, "a verified host", err, survey.ECONFLICT)
	})
}

// TestDomainVerifiedHost: the base of a tenant's survey links is the
// public URL until its domain is proved, then https:// and the domain;
// this store's verification and removal are seen at once, and a second
// ask within the cache's time reads nothing (another store, as another
// instance, sees a change once its entry expires).
func TestDomainVerifiedHost(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		now := time.Now()
		clock := func() time.Time { return now }
		ds := store.NewDomainStore(st).WithClock(clock)
		other := store.NewDomainStore(st).WithClock(clock)
		host := "links." + key + ".example"
		base := func(d *store.DomainStore, want string) {
			t.Helper()
			got, err := store.SurveyBase(ctx, d, key, "https://surveys.example/")
			if err != nil || got != want {
				t.Fatalf("SurveyBase = %q, %v; want %q", got, err, want)
			}
		}
		base(ds, "https://surveys.example")
		base(other, "https://surveys.example")
		if _, err := ds.Claim(ctx, key, host); err != nil {
			t.Fatal(err)
		}
		base(ds, "https://surveys.example")
		if _, err := ds.MarkVerified(ctx, key); err != nil {
			t.Fatal(err)
		}
		base(ds, "https://"+host)
		base(other, "https://surveys.example") // its cached absence
		now = now.Add(store.VerifiedHostTTL + time.Second)
		base(other, "https://"+host)
		if got, err := store.SurveyBase(ctx, nil, key, "https://surveys.example"); err != nil || got != "https://surveys.example" {
			t.Fatalf("no domain store: %q, %v", got, err)
		}
		if _, err := ds.Remove(ctx, key); err != nil {
			t.Fatal(err)
		}
		base(ds, "https://surveys.example")
	})
}
