package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/store"
)

// TestTransferOnePending: a survey has one transfer request at a time. A
// second request while the first waits (also several at once, as a
// double click makes) gets 409 "A copy is already under way" and
// enqueues nothing.
func TestTransferOnePending(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	tn := app.tenant(t, "adatum")
	tn.SQLConnection, tn.SQLPassword = pgtest.ConnectionString(pgtest.NewDatabase(t)), pgtest.Password
	if err := store.NewTenantStore(app.st).WithSecrets(testBox).Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	transfer := "/adatum/surveys/" + app.adatum.Slug + "/transfer"
	if code, _, _ := app.do(t, "POST", transfer, url.Values{}, ana); code != http.StatusSeeOther {
		t.Fatalf("first request = %d", code)
	}
	code, _, body := app.do(t, "POST", transfer, url.Values{}, ana)
	if code != http.StatusConflict || !strings.Contains(body, "A copy is already under way") {
		t.Errorf("second request = %d\n%s", code, body)
	}
	if n, _ := app.st.ApproximateCount(ctx, store.TransfersQueue); n != 1 {
		t.Fatalf("%d requests queued, want 1", n)
	}

	// Several at once, for a survey with none pending: one is queued.
	other, err := app.surveys.List(ctx, "fabrikam")
	if err != nil {
		t.Fatal(err)
	}
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	fn := app.tenant(t, "fabrikam")
	fn.SQLConnection, fn.SQLPassword = tn.SQLConnection, tn.SQLPassword
	if err := store.NewTenantStore(app.st).WithSecrets(testBox).Update(ctx, fn); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, _ := app.do(t, "POST", "/fabrikam/surveys/"+other[0].Slug+"/transfer", url.Values{}, fred)
			codes <- code
		}()
	}
	wg.Wait()
	close(codes)
	accepted := 0
	for c := range codes {
		switch c {
		case http.StatusSeeOther:
			accepted++
		case http.StatusConflict:
		default:
			t.Errorf("a request at once = %d", c)
		}
	}
	if n, _ := app.st.ApproximateCount(ctx, store.TransfersQueue); accepted != 1 || n != 2 {
		t.Fatalf("%d of 8 requests at once accepted, %d queued in all; want 1 and 2", accepted, n)
	}
}
