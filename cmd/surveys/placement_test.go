package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
)

// TestTenantPlacement: a subscriber that picks a region at on-boarding has
// its surveys and answers kept in that region's store, end to end through
// the served site; the tenant record stays at home.
func TestTenantPlacement(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseServe([]string{"--addr", "127.0.0.1:0", "--data", dir, "--regions", "westeurope,northeurope"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	post := func(path string, v url.Values) (int, string) {
		t.Helper()
		resp, err := client.PostForm(base+path, v)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/onboarding", url.Values{"name": {"Contoso"}, "email": {"c@contoso.example"}, "password": {"long enough pass"}, "plan": {"Standard"}, "region": {"mars"}}); code != 422 || !strings.Contains(body, "Choose where your data is kept.") {
		t.Fatalf("an unknown region = %d", code)
	}
	if code, _ := post("/onboarding", url.Values{"name": {"Contoso"}, "email": {"c@contoso.example"}, "password": {"long enough pass"}, "plan": {"Standard"}, "region": {"westeurope"}}); code != 200 {
		t.Fatalf("on-boarding = %d", code)
	}
	if code, _ := post("/contoso/surveys/new", url.Values{"title": {"Placed survey"}, "n": {"1"}, "q.0.text": {"Rate us"}, "q.0.type": {"FiveStars"}, "action": {"publish"}}); code != 200 {
		t.Fatalf("publish = %d", code)
	}
	resp, err := http.Get(base + "/survey/contoso/placed-survey")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := between(string(page), `name="token" value="`, `"`)
	qname := between(string(page), `name="q-`, `"`)
	if resp.StatusCode != 200 || token == "" || qname == "" {
		t.Fatalf("survey page = %d", resp.StatusCode)
	}
	if code, _ := post("/survey/contoso/placed-survey", url.Values{"token": {token}, "q-" + qname: {"5"}}); code != 200 {
		t.Fatalf("answer = %d", code)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := client.Get(base + "/contoso/surveys/placed-survey/analyze")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "<dt>Average rating</dt><dd>5.00") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the answer never reached the summary:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// Underneath: the survey, answer and summary are in westeurope's store.
	ctx := context.Background()
	open := func(name string) storage.Storage {
		st, err := local.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	home, west, north := open("surveys.db"), open("regions/westeurope.db"), open("regions/northeurope.db")
	for name, st := range map[string]storage.Storage{"home": home, "westeurope": west, "northeurope": north} {
		_, errRow := st.GetEntity(ctx, store.SurveysTable, "contoso", "contoso_placed-survey")
		page, errList := st.ListBlobs(ctx, store.AnswersContainer("contoso", "placed-survey"), storage.ListOptions{})
		_, errSum := st.GetBlob(ctx, store.SummariesContainer, "contoso-placed-survey")
		in := errRow == nil && errList == nil && len(page.Items) == 1 && errSum == nil
		out := errRow != nil && errList != nil && errSum != nil
		if name == "westeurope" && !in {
			t.Errorf("westeurope lacks the tenant's data: %v %v %v", errRow, errList, errSum)
		}
		if name != "westeurope" && !out {
			t.Errorf("%s holds some of the tenant's data: %v %v %v", name, errRow, errList, errSum)
		}
	}
	if _, err := home.GetBlob(ctx, store.TenantsContainer, "contoso"); err != nil {
		t.Errorf("the tenant record is not at home: %v", err)
	}
	// The demo tenants, with no region, are at home.
	if _, err := home.GetEntity(ctx, store.SurveysTable, "adatum", "adatum_adatum-customer-satisfaction"); err != nil {
		t.Errorf("the demo survey is not at home: %v", err)
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
