package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/web"
)

const formExpired = "This form has expired; your answers are kept, please submit again."

// newClockApp is a test app whose form tokens see a clock the test moves.
func newClockApp(t *testing.T) (*testApp, *atomic.Int64) {
	t.Helper()
	var skew atomic.Int64
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) {
		d.Clock = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	})
	return app, &skew
}

// TestFormToken: an answer POST needs a token this server made for this
// survey within a day; any other comes back 422 with the answers kept and a
// fresh token, and stores nothing.
func TestFormToken(t *testing.T) {
	t.Parallel()
	app, skew := newClockApp(t)
	fabrikam, err := app.surveys.List(context.Background(), "fabrikam")
	if err != nil || len(fabrikam) == 0 {
		t.Fatalf("fabrikam's surveys: %v", err)
	}
	good := app.token(t, app.path())
	id, _, _ := strings.Cut(good, ".")
	tests := []struct {
		name  string
		token func() string
	}{
		{"missing", func() string { return "" }},
		{"an answer ID alone (as before)", func() string { return store.NewAnswerID(time.Now()) }},
		{"forged", func() string { return id + ".AAAAAAAAAAAAAAAAAAAAAA" }},
		{"another ID under the mark", func() string { return store.NewAnswerID(time.Now()) + good[len(id):] }},
		{"another survey's", func() string { return app.token(t, "/survey/fabrikam/"+fabrikam[0].Slug) }},
		{"expired", func() string {
			tok := app.token(t, app.path())
			skew.Store(int64(25 * time.Hour))
			return tok
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer skew.Store(0)
			before := app.stored(t)
			form := app.complete(tc.token())
			code, _, body := app.do(t, "POST", app.path(), form, nil)
			m := tokenRE.FindStringSubmatch(body)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, "This form has expired; your answers are kept, please submit again.") ||
				m == nil || m[1] == form.Get("token") || !strings.Contains(body, "Faster pages, please &lt;script&gt;") {
				t.Fatalf("POST = %d; want 422 saying the form expired, with the answers kept and a fresh token", code)
			}
			if got := app.stored(t) - before; got != 0 {
				t.Fatalf("%d answers stored", got)
			}
			// The fresh token is accepted.
			skew.Store(0)
			if code, _, _ := app.do(t, "POST", app.path(), app.complete(m[1]), nil); code != http.StatusSeeOther {
				t.Fatalf("POST with the fresh token = %d", code)
			}
		})
	}
	// A day less a minute is still good.
	tok := app.token(t, app.path())
	skew.Store(int64(24*time.Hour - time.Minute))
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(tok), nil); code != http.StatusSeeOther {
		t.Fatalf("a token 23h59m old = %d, want 303", code)
	}
}

var challengeRE = regexp.MustCompile(`name="pow" value="" data-challenge="([0-9a-f]{64})" data-max="([0-9]+)"`)

// solve finds the number whose hash with the token is the challenge, as
// the page's script does.
func solve(t *testing.T, token, challenge string, max int) string {
	t.Helper()
	for n := 0; n <= max; n++ {
		sum := sha256.Sum256([]byte(token + strconv.Itoa(n)))
		if hex.EncodeToString(sum[:]) == challenge {
			return strconv.Itoa(n)
		}
	}
	t.Fatalf("no solution to %s up to %d", challenge, max)
	return ""
}

// challengePage gets the survey page and returns its token, challenge and
// the solution.
func (a *testApp) challengePage(t *testing.T) (token, pow string) {
	t.Helper()
	code, _, body := a.do(t, "GET", a.path(), nil, nil)
	tm, cm := tokenRE.FindStringSubmatch(body), challengeRE.FindStringSubmatch(body)
	if code != http.StatusOK || tm == nil || cm == nil || !strings.Contains(body, "challenge.js") || !strings.Contains(body, `aria-live="polite"`) || !strings.Contains(body, "<noscript>") {
		t.Fatalf("GET %s = %d without a challenge, its script, its status line or its no-script notice", a.path(), code)
	}
	max, _ := strconv.Atoi(cm[2])
	if max < 50_000 || max > 1_000_000 {
		t.Fatalf("challenge up to %d", max)
	}
	return tm[1], solve(t, tm[1], cm[1], max)
}

// TestChallenge: a survey with the robot check on takes an answer with the
// solution of its form's challenge, once; a missing, wrong, replayed or
// expired one comes back 422 with the answers kept, and is not stored.
func TestChallenge(t *testing.T) {
	t.Parallel()
	app, skew := newClockApp(t)
	ctx := context.Background()
	if err := app.surveys.SetChallenge(ctx, "adatum", app.adatum.Slug, true); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	with := func(token, pow string) url.Values {
		v := app.complete(token)
		if pow != "" {
			v.Set("pow", pow)
		}
		return v
	}
	token, pow := app.challengePage(t)
	wrong := strconv.Itoa((mustAtoi(t, pow) + 1) % 100_001)
	tests := []struct {
		name string
		form func() url.Values
		says string
	}{
		{"no solution (no JavaScript)", func() url.Values { return with(token, "") }, "which needs JavaScript"},
		{"wrong solution", func() url.Values { return with(token, wrong) }, "did not pass"},
		{"not a number", func() url.Values { return with(token, "0"+pow) }, "did not pass"},
		{"another form's solution", func() url.Values { other, _ := app.challengePage(t); return with(other, pow) }, "did not pass"},
		{"expired", func() url.Values {
			tok, p := app.challengePage(t)
			skew.Store(int64(25 * time.Hour))
			return with(tok, p)
		}, formExpired},
	}
	before := app.stored(t)
	for _, tc := range tests {
		code, _, body := app.do(t, "POST", app.path(), tc.form(), nil)
		skew.Store(0)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, tc.says) || !strings.Contains(body, "Faster pages, please &lt;script&gt;") || challengeRE.FindStringSubmatch(body) == nil {
			t.Errorf("%s: %d; want 422 saying %q, with the answers kept and a new challenge", tc.name, code, tc.says)
		}
	}
	if n := app.stored(t) - before; n != 0 {
		t.Fatalf("%d refused answers were stored", n)
	}
	if code, _, body := app.do(t, "POST", app.path(), with(token, pow), nil); code != http.StatusSeeOther {
		t.Fatalf("the solution = %d, want 303\n%s", code, body)
	}
	if code, _, body := app.do(t, "POST", app.path(), with(token, pow), nil); code != http.StatusUnprocessableEntity || !strings.Contains(body, "already sent") {
		t.Fatalf("the same solution again = %d, want 422 saying it was already sent", code)
	}
	if n := app.stored(t) - before; n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	// Switched off, the form needs no solution again.
	if err := app.surveys.SetChallenge(ctx, "adatum", app.adatum.Slug, false); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	if code, _, body := app.do(t, "GET", app.path(), nil, nil); code != 200 || strings.Contains(body, "challenge.js") {
		t.Fatalf("a survey without the check = %d, with its script", code)
	}
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != http.StatusSeeOther {
		t.Fatalf("an answer without the check = %d", code)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDesignerChallenge: the robot check is a checkbox of the designer,
// stored on the survey, and a button of a published survey.
func TestDesignerChallenge(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	c := signedIn(t, app, "adatum", "ana@adatum.example")
	cookie := map[string]string{"Cookie": c.Name + "=" + c.Value}
	if code, _, body := app.get(t, "/adatum/surveys/new", c); code != 200 || !strings.Contains(body, `name="challenge"`) {
		t.Fatalf("the designer (%d) has no robot check", code)
	}
	form := url.Values{"title": {"Checked survey"}, "n": {"1"}, "q.0.text": {"Rate us"}, "q.0.type": {"FiveStars"}, "challenge": {"1"}, "action": {"save"}}
	if code, h, _ := app.do(t, "POST", "/adatum/surveys/new", form, cookie); code != http.StatusSeeOther {
		t.Fatalf("save = %d %s", code, h.Get("Location"))
	}
	sv, err := app.surveys.Get(ctx, "adatum", "checked-survey")
	if err != nil || !sv.Challenge {
		t.Fatalf("saved survey = %+v, %v; want the check on", sv, err)
	}
	if code, _, body := app.get(t, "/adatum/surveys/checked-survey/edit", c); code != 200 || !strings.Contains(body, `name="challenge" value="1" aria-describedby="challenge-hint" checked`) {
		t.Fatalf("the draft's designer (%d) does not show the check on", code)
	}
	// A published survey: switched off and on by its buttons.
	for _, tc := range []struct {
		action string
		want   bool
	}{{"challenge-off", false}, {"challenge-on", true}} {
		if code, _, _ := app.do(t, "POST", "/adatum/surveys/"+app.adatum.Slug+"/"+tc.action, url.Values{}, cookie); code != http.StatusSeeOther {
			t.Fatalf("%s = %d", tc.action, code)
		}
		if sv, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug); err != nil || sv.Challenge != tc.want || len(sv.Questions) != len(app.adatum.Questions) {
			t.Fatalf("after %s: %+v, %v", tc.action, sv, err)
		}
	}
	if code, _, body := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/edit", c); code != 200 || !strings.Contains(body, "Stop the robot check") {
		t.Fatalf("the published survey's page (%d) has no button to stop the check", code)
	}
}
