package survey_test

import (
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

func TestParseNotifyChoices(t *testing.T) {
	for _, c := range []struct {
		name   string
		form   map[string][]string
		want   survey.NotifyChoices
		fields []string
	}{
		{"none", nil, survey.NotifyChoices{}, nil},
		{"each", map[string][]string{"each": {"on"}}, survey.NotifyChoices{EachAnswer: true}, nil},
		{"both", map[string][]string{"each": {"1"}, "digest": {"true"}}, survey.NotifyChoices{EachAnswer: true, Digest: true}, nil},
		{"cleared", map[string][]string{"each": {""}, "digest": {"off"}}, survey.NotifyChoices{}, nil},
		{"not a checkbox", map[string][]string{"each": {"yes please"}}, survey.NotifyChoices{}, []string{"each"}},
		{"twice", map[string][]string{"digest": {"on", "on"}}, survey.NotifyChoices{}, []string{"digest"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := survey.ParseNotifyChoices(c.form)
			if len(c.fields) == 0 {
				if err != nil || got != c.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
				}
				return
			}
			e, ok := err.(*survey.Error)
			if !ok || e.Code != survey.EINVALID {
				t.Fatalf("err = %v, want EINVALID", err)
			}
			for _, f := range c.fields {
				if e.Fields[f] == "" {
					t.Errorf("no message beside %s: %v", f, e.Fields)
				}
			}
		})
	}
}

func TestUnsubscribeToken(t *testing.T) {
	good := []survey.Unsubscribe{
		{Tenant: "adatum", Slug: "team-lunch", Email: "ana@adatum.example", What: survey.NotifyEachAnswer},
		{Tenant: "adatum", Slug: "team-lunch", Email: "ana@adatum.example", What: survey.NotifyDigest},
		{Tenant: "adatum", Email: "ana@adatum.example", What: survey.NotifyAlerts},
	}
	for _, u := range good {
		tok := u.Token(testKey)
		got, err := survey.ParseUnsubscribe(testKey, tok)
		if err != nil || got != u {
			t.Fatalf("%+v: got %+v, %v", u, got, err)
		}
		// Altered anywhere, or checked with another key: refused.
		for i := range tok {
			b := []byte(tok)
			b[i] ^= 1
			if _, err := survey.ParseUnsubscribe(testKey, string(b)); err == nil {
				t.Fatalf("%q altered at %d is accepted", tok, i)
			}
		}
		if _, err := survey.ParseUnsubscribe([]byte("another key of thirty-two bytes!"), tok); err == nil {
			t.Fatal("a token of another key is accepted")
		}
		if _, err := survey.ParseUnsubscribe(nil, tok); err == nil {
			t.Fatal("a token is accepted without a key")
		}
	}
	// Signed, but not of a kind an e-mail carries: refused.
	for _, u := range []survey.Unsubscribe{
		{Tenant: "adatum", Email: "ana@adatum.example", What: survey.NotifyEachAnswer},
		{Tenant: "adatum", Slug: "x", Email: "ana@adatum.example", What: survey.NotifyAlerts},
		{Tenant: "adatum", Slug: "x", Email: "ana@adatum.example", What: "everything"},
		{Tenant: "Not a tenant", Slug: "x", Email: "ana@adatum.example", What: survey.NotifyDigest},
		{Tenant: "adatum", Slug: "x", Email: "not an address", What: survey.NotifyDigest},
		{Tenant: "adatum", Slug: "x\ny", Email: "ana@adatum.example", What: survey.NotifyDigest},
	} {
		if _, err := survey.ParseUnsubscribe(testKey, u.Token(testKey)); err == nil {
			t.Errorf("%+v is accepted", u)
		}
	}
	if _, err := survey.ParseUnsubscribe(testKey, strings.Repeat("a", 5000)); err == nil {
		t.Fatal("a long token is accepted")
	}
}

func FuzzParseUnsubscribe(f *testing.F) {
	f.Add(survey.Unsubscribe{Tenant: "adatum", Slug: "s", Email: "a@b.example", What: survey.NotifyDigest}.Token(testKey))
	f.Add("")
	f.Add(".")
	f.Add("YQ.YQ")
	f.Fuzz(func(t *testing.T, tok string) {
		u, err := survey.ParseUnsubscribe(testKey, tok)
		if err != nil {
			return
		}
		// Whatever parses is what its own token says.
		if again, err := survey.ParseUnsubscribe(testKey, u.Token(testKey)); err != nil || again != u {
			t.Fatalf("%q: %+v, then %+v, %v", tok, u, again, err)
		}
	})
}

func FuzzParseNotifyChoices(f *testing.F) {
	f.Add("on", "", "off")
	f.Add("1", "true", "x")
	f.Fuzz(func(t *testing.T, each, digest, alerts string) {
		form := map[string][]string{"each": {each}, "digest": {digest}, "alerts": {alerts}}
		c, err := survey.ParseNotifyChoices(form)
		if err == nil && c.EachAnswer != (each == "on" || each == "1" || each == "true") {
			t.Fatalf("%q read as %v", each, c.EachAnswer)
		}
		if _, err := survey.ParseAlertsChoice(form); err != nil && survey.ErrorCode(err) != survey.EINVALID {
			t.Fatal(err)
		}
	})
}
