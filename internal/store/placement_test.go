package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestPlacement keeps each tenant's data in its region's account: here
// home is an embedded store, "westeurope" an Azure account (Azurite) and
// "northeurope" another embedded store. The stores above see one storage.
func TestPlacement(t *testing.T) {
	ctx := context.Background()
	home, west, north := backends.Local(t), backends.Azure(t), backends.Local(t)
	p := store.NewPlacement(home, map[string]storage.Storage{"westeurope": west, "northeurope": north})
	if err := store.Init(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := p.Regions(); len(got) != 2 || got[0] != "northeurope" || got[1] != "westeurope" {
		t.Fatalf("Regions = %v", got)
	}
	tenants, surveys, answers := store.NewTenantStore(p), store.NewSurveyStore(p), store.NewSurveyAnswerStore(p)
	keys := map[string]string{"westeurope": newTenant(), "northeurope": newTenant(), "": newTenant()}
	where := map[string]storage.Storage{"westeurope": west, "northeurope": north, "": home}
	made := map[string]*survey.Survey{}
	for region, key := range keys {
		if err := tenants.Create(ctx, &survey.Tenant{Key: key, Name: key, Plan: survey.Premium, HostGeoLocation: region}); err != nil {
			t.Fatal(err)
		}
		s := sample(key, "Placed")
		s.State = survey.Published
		if err := surveys.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: "4", s.Questions[1].ID: "Red", s.Questions[2].ID: "Fine", s.Questions[3].ID: "5"}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		if _, err := answers.File(ctx, &a, "m1"); err != nil {
			t.Fatal(err)
		}
		if _, err := answers.AppendAt(ctx, key, s.Slug, nil, 0, []string{a.ID}); err != nil {
			t.Fatal(err)
		}
		if err := store.NewSurveyTransferStore(p).Request(ctx, key, s.Slug); err != nil {
			t.Fatal(err)
		}
		made[region] = s
	}
	for region, key := range keys {
		s := made[region]
		// Through the placement, every tenant reads its own data.
		got, err := surveys.Get(ctx, key, s.Slug)
		if err != nil || len(got.Questions) != 4 {
			t.Fatalf("%s: Get = %v, %v", region, got, err)
		}
		if n, err := answers.Count(ctx, key, s.Slug); err != nil || n != 1 {
			t.Fatalf("%s: Count = %d, %v", region, n, err)
		}
		// Underneath, its rows and blobs are in its region's account only.
		for r, st := range where {
			_, errRow := st.GetEntity(ctx, store.SurveysTable, key, key+"_"+s.Slug)
			_, errBlobs := st.ListBlobs(ctx, store.AnswersContainer(key, s.Slug), storage.ListOptions{})
			if r == region && (errRow != nil || errBlobs != nil) {
				t.Errorf("tenant of %q: not in its account: %v, %v", region, errRow, errBlobs)
			}
			if r != region && (errRow == nil || errBlobs == nil) {
				t.Errorf("tenant of %q: found in the account of %q", region, r)
			}
		}
		// So is the status of its transfer to its own database; the request
		// is on the home queue.
		for r, st := range where {
			_, err := st.GetBlob(ctx, store.TransferStatusContainer, key+"-"+s.Slug)
			if (r == region) != (err == nil) {
				t.Errorf("tenant of %q: transfer status in the account of %q: %v", region, r, err)
			}
		}
		if ts, err := store.NewSurveyTransferStore(p).Status(ctx, key, s.Slug); err != nil || ts.State != store.TransferRequested {
			t.Errorf("tenant of %q: transfer status = %+v, %v", region, ts, err)
		}
		// The tenant record is at home, for every instance to find.
		if _, err := home.GetBlob(ctx, store.TenantsContainer, key); err != nil {
			t.Errorf("tenant of %q: record not at home: %v", region, err)
		}
	}
	// Deleting a survey deletes it where it is.
	if err := surveys.Delete(ctx, keys["westeurope"], made["westeurope"].Slug); err != nil {
		t.Fatal(err)
	}
	if _, err := west.GetEntity(ctx, store.SurveysTable, keys["westeurope"], keys["westeurope"]+"_"+made["westeurope"].Slug); err == nil {
		t.Fatal("the deleted survey's row is still in its region")
	}
	if _, err := west.GetBlob(ctx, store.TransferStatusContainer, keys["westeurope"]+"-"+made["westeurope"].Slug); err == nil {
		t.Fatal("the deleted survey's transfer status is still in its region")
	}
	if n, err := home.ApproximateCount(ctx, store.TransfersQueue); err != nil || n != 3 {
		t.Fatalf("transfer requests on the home queue = %d, %v", n, err)
	}
}
