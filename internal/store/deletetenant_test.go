package store_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/url"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// tenantWithData makes a tenant with a survey and an answer, an account, a
// session, an API token and a logo, and returns the session and token.
func tenantWithData(t *testing.T, st storage.Storage, key string) (*survey.Survey, string, string) {
	t.Helper()
	ctx := context.Background()
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: key, Name: key, Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	s := sample(key, "Delete me")
	s.State = survey.Published
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: "4", s.Questions[1].ID: "Red", s.Questions[2].ID: "Fine", s.Questions[3].ID: "5"}))
	if err != nil {
		t.Fatal(err)
	}
	a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
	if _, err := store.NewSurveyAnswerStore(st).File(ctx, &a, "msg-1"); err != nil {
		t.Fatal(err)
	}
	f, _ := survey.ParseAnswerFilter(s, url.Values{"q": {s.Questions[1].ID}, "a": {"Red"}})
	g, err := survey.NewSegment(s, "Red", f, "admin@"+key+".example", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.NewSavedSegmentStore(st).Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	users := store.NewUserStore(st)
	store.SetUserCost(users)
	u, err := users.Add(ctx, key, "admin@"+key+".example", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	session, err := users.NewSession(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	token, err := store.NewTokenStore(st).Create(ctx, key, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.NewAuditStore(st).Append(ctx, survey.AuditEvent{Tenant: key, Actor: u.Email, Action: survey.AuditTokenCreated, Target: "ci"}); err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	_ = png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	if _, err := store.NewLogoStore(st).Put(ctx, key, img.Bytes()); err != nil {
		t.Fatal(err)
	}
	return s, session, token
}

// TestDeleteTenant removes every piece of a tenant's data, and nothing of
// another tenant's; running it again after it finished says not found.
func TestDeleteTenant(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		other := newTenant()
		s, session, token := tenantWithData(t, st, key)
		os, osession, otoken := tenantWithData(t, st, other)
		tenants := store.NewTenantStore(st)

		d, err := store.DeleteTenant(ctx, st, tenants, key)
		if err != nil {
			t.Fatal(err)
		}
		if d != (store.TenantDeletion{Surveys: 1, Users: 1, Sessions: 1, Tokens: 1, Logos: 1}) {
			t.Fatalf("deleted %+v", d)
		}
		_, err = tenants.Get(ctx, key)
		wantCode(t, "tenant after delete", err, survey.ENOTFOUND)
		if list, err := store.NewSurveyStore(st).List(ctx, key); err != nil || len(list) != 0 {
			t.Fatalf("surveys after delete: %v %v", list, err)
		}
		if _, err := st.ListBlobs(ctx, store.AnswersContainer(key, s.Slug), storage.ListOptions{}); err == nil {
			t.Fatal("the answers container is still there")
		}
		if _, err := store.NewUserStore(st).Session(ctx, session); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("session after delete: %v", err)
		}
		if _, err := store.NewUserStore(st).Authenticate(ctx, key, "admin@"+key+".example", "correct horse battery"); err == nil {
			t.Fatal("the account still signs in")
		}
		if got, _ := store.NewUserStore(st).TenantsOf(ctx, "admin@"+key+".example"); len(got) != 0 {
			t.Fatalf("the account is still indexed by email: %v", got)
		}
		if got, _ := store.NewUserStore(st).TenantsOf(ctx, "admin@"+other+".example"); len(got) != 1 {
			t.Fatalf("the other tenant's account is unindexed: %v", got)
		}
		if _, err := store.NewTokenStore(st).Tenant(ctx, token); err == nil {
			t.Fatal("the API token still works")
		}
		if page, _ := st.ListBlobs(ctx, store.LogosContainer, storage.ListOptions{Prefix: key + "-"}); len(page.Items) != 0 {
			t.Fatalf("logos left: %v", page.Items)
		}
		if page, err := st.QueryPartition(ctx, store.SavedSegmentsTable, key, storage.Query{}); err != nil || len(page.Entities) != 0 {
			t.Fatalf("saved segments left: %v %v", page.Entities, err)
		}
		if list, err := store.NewSavedSegmentStore(st).List(ctx, other, os.Slug); err != nil || len(list) != 1 {
			t.Fatalf("the other tenant's segments: %v %v", list, err)
		}
		if page, err := st.QueryPartition(ctx, store.AuditTable, key, storage.Query{}); err != nil || len(page.Entities) != 0 {
			t.Fatalf("audit events left: %v %v", page.Entities, err)
		}
		if list, _, err := store.NewAuditStore(st).List(ctx, other, survey.AuditFilter{}, "", 10); err != nil || len(list) != 1 {
			t.Fatalf("the other tenant's audit log: %v %v", list, err)
		}
		// The other tenant is whole.
		if _, err := tenants.Get(ctx, other); err != nil {
			t.Fatal(err)
		}
		if page, err := st.ListBlobs(ctx, store.AnswersContainer(other, os.Slug), storage.ListOptions{}); err != nil || len(page.Items) != 1 {
			t.Fatalf("other tenant's answers = %v, %v", page, err)
		}
		if sess, err := store.NewUserStore(st).Session(ctx, osession); err != nil || sess.Tenant != other {
			t.Fatalf("other tenant's session = %v, %v", sess, err)
		}
		if tn, err := store.NewTokenStore(st).Tenant(ctx, otoken); err != nil || tn != other {
			t.Fatalf("other tenant's token = %q, %v", tn, err)
		}
		_, err = store.DeleteTenant(ctx, st, tenants, key)
		wantCode(t, "delete again", err, survey.ENOTFOUND)
	})
}
