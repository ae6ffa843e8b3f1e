package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDeleteTenantLeavesNothing: after a tenant with data in most of the
// store's places (passkeys among them) is deleted, no row of any table (store.Tables) and no
// blob of any shared container or of the logos names it: neither in its
// keys nor in a text property. The other tenant's rows are still there,
// so that the scan is seen to find what it looks for.
func TestDeleteTenantLeavesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		other := newTenant()
		for _, k := range []string{key, other} {
			s, _, _ := tenantWithData(t, st, k)
			if err := store.NewAuditStore(st).Append(ctx, survey.AuditEvent{Tenant: k, At: time.Now(), Actor: "admin@" + k + ".example",
				Action: survey.AuditSurveyPublished, Target: s.Slug, IP: "203.0.113.7"}); err != nil {
				t.Fatal(err)
			}
			if err := store.NewNotificationStore(st).Subscribe(ctx, k, s.Slug, "admin@"+k+".example", survey.NotifyChoices{EachAnswer: true}, 0, time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := store.NewDomainStore(st).Claim(ctx, k, "surveys."+k+".example"); err != nil {
				t.Fatal(err)
			}
			if _, err := store.NewDomainStore(st).MarkVerified(ctx, k); err != nil {
				t.Fatal(err)
			}
			cs := store.NewContactStore(st)
			l, err := cs.CreateList(ctx, k, "Customers of "+k)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.Add(ctx, k, l.ID, survey.Recipient{Email: "ana@" + k + ".example", Name: k}); err != nil {
				t.Fatal(err)
			}
			if err := cs.Suppress(ctx, k, "bo@"+k+".example", store.SuppressBounced); err != nil {
				t.Fatal(err)
			}
			c, err := store.NewCampaignStore(st).Create(ctx, k, store.NewCampaign{Survey: s.Slug, List: l.ID, Subject: "From " + k, Text: "Answer " + k, SendAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if err := store.NewCampaignStore(st).Claim(ctx, k, c.ID, []*store.Send{{Contact: store.ContactID("ana@" + k + ".example"), Email: "ana@" + k + ".example", State: store.SendSent}}); err != nil {
				t.Fatal(err)
			}
			if _, err := store.NewUserStore(st).AddPasskey(ctx, k, "admin@"+k+".example", "Laptop", []byte("cred-"+k), []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := store.NewWebhookStore(st).WithSecrets(testSecrets(t)).Add(ctx, k, store.NewWebhook{URL: "https://hooks." + k + ".example/in", Events: []string{"response.created"}}, nil); err != nil {
				t.Fatal(err)
			}
			// Its SCIM token and directory: a user, a group, the roles'
			// groups.
			if _, err := store.NewSCIMTokenStore(st).Create(ctx, k, "Entra ID"); err != nil {
				t.Fatal(err)
			}
			dir := store.NewSCIMStore(st)
			u, err := dir.CreateUser(ctx, k, store.SCIMUser{Email: "provisioned@" + k + ".example", Active: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := dir.CreateGroup(ctx, k, store.SCIMGroup{DisplayName: "Survey editors", Members: []string{u.ID}}); err != nil {
				t.Fatal(err)
			}
			if _, err := dir.SetRoleGroups(ctx, k, store.SCIMRoleGroups{Editor: "Survey editors"}); err != nil {
				t.Fatal(err)
			}
			if err := store.NewSAMLStore(st).WithSecrets(testSecrets(t)).Put(ctx, testSAMLProvider(k)); err != nil {
				t.Fatal(err)
			}
			if err := store.NewSAMLStore(st).Consume(ctx, k, "assertion-of-"+k, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.DeleteTenant(ctx, st, store.NewTenantStore(st), key); err != nil {
			t.Fatal(err)
		}
		found := map[string]int{} // by tenant, what the scan finds
		names := func(s string) (string, bool) {
			for _, k := range []string{key, other} {
				if strings.Contains(s, k) {
					return k, true
				}
			}
			return "", false
		}
		for _, table := range store.Tables {
			q := storage.TableQuery{}
			for {
				page, err := st.QueryTable(ctx, table, q)
				if err != nil {
					t.Fatalf("%s: %v", table, err)
				}
				for _, e := range page.Entities {
					texts := []string{e.PartitionKey, e.RowKey}
					for _, v := range e.Properties {
						if s, ok := v.(string); ok {
							texts = append(texts, s)
						}
					}
					for _, s := range texts {
						if k, ok := names(s); ok {
							found[k]++
							if k == key {
								t.Errorf("table %s keeps a row of the deleted tenant: %s/%s", table, e.PartitionKey, e.RowKey)
							}
							break
						}
					}
				}
				if page.Continuation == "" {
					break
				}
				q.Continuation = page.Continuation
			}
		}
		for _, c := range append(store.SharedContainers, store.LogosContainer) {
			opts := storage.ListOptions{}
			for {
				page, err := st.ListBlobs(ctx, c, opts)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				for _, b := range page.Items {
					if k, ok := names(b.Name); ok {
						found[k]++
						if k == key {
							t.Errorf("container %s keeps a blob of the deleted tenant: %s", c, b.Name)
						}
					}
				}
				if page.NextMarker == "" {
					break
				}
				opts.Marker = page.NextMarker
			}
		}
		if found[other] == 0 {
			t.Fatalf("the scan found nothing of the other tenant: it looks in the wrong places")
		}
	})
}
