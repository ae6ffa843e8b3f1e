package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

func newWebhookStore(t *testing.T, st storage.Storage) *store.WebhookStore {
	t.Helper()
	box, err := secret.New(make([]byte, secret.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return store.NewWebhookStore(st).WithSecrets(box)
}

// TestWebhookEndpoints: endpoints are added (with a sealed secret shown
// once), listed per tenant only, checked, recorded, disabled, enabled and
// deleted, on both backends.
func TestWebhookEndpoints(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ws := newWebhookStore(t, st)
		known := func(s string) bool { return s == "csat" }

		// Bad input: each field's message, nothing saved.
		for _, tc := range []struct {
			n     store.NewWebhook
			field string
		}{
			{store.NewWebhook{URL: "", Events: []string{webhook.ResponseCreated}}, "url"},
			{store.NewWebhook{URL: "https://x.example/" + strings.Repeat("a", 2000), Events: []string{webhook.ResponseCreated}}, "url"},
			{store.NewWebhook{URL: "https://x.example/"}, "events"},
			{store.NewWebhook{URL: "https://x.example/", Events: []string{"response.deleted"}}, "events"},
			{store.NewWebhook{URL: "https://x.example/", Events: []string{webhook.ResponseCreated}, Surveys: []string{"other"}}, "surveys"},
		} {
			_, err := ws.Add(ctx, tenant, tc.n, known)
			var se *survey.Error
			if survey.ErrorCode(err) != survey.EINVALID || !asError(err, &se) || se.Fields[tc.field] == "" {
				t.Errorf("Add(%+v) = %v, want a message for %s", tc.n, err, tc.field)
			}
		}
		if eps, _ := ws.List(ctx, tenant); len(eps) != 0 {
			t.Fatalf("saved after bad input: %v", eps)
		}

		e, err := ws.Add(ctx, tenant, store.NewWebhook{URL: "https://hooks.example/in", Events: []string{webhook.SurveyClosed, webhook.ResponseCreated, webhook.ResponseCreated}, Surveys: []string{"csat"}}, known)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(e.Secret, "whsec_") || strings.Join(e.Events, ",") != "response.created,survey.closed" {
			t.Fatalf("added %+v", e)
		}
		// The secret is sealed at rest.
		ent, err := st.GetEntity(ctx, store.WebhooksTable, tenant, e.ID)
		if err != nil || strings.Contains(ent.String("Secret"), strings.TrimPrefix(e.Secret, "whsec_")) || ent.String("Secret") == "" {
			t.Fatalf("stored secret %q, %v", ent.String("Secret"), err)
		}
		got, err := ws.Get(ctx, tenant, e.ID)
		if err != nil || got.Secret != e.Secret || got.URL != e.URL {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		if !got.Wants(webhook.ResponseCreated, "csat") || got.Wants(webhook.ResponseCreated, "other") || got.Wants(webhook.SurveyPublished, "csat") {
			t.Fatal("Wants")
		}
		// Another tenant sees nothing of it, and cannot reach it by ID.
		other := newTenant()
		if eps, _ := ws.List(ctx, other); len(eps) != 0 {
			t.Fatalf("other tenant lists %v", eps)
		}
		_, err = ws.Get(ctx, other, e.ID)
		wantCode(t, "other tenant's Get", err, survey.ENOTFOUND)
		wantCode(t, "other tenant's Delete", ws.Delete(ctx, other, e.ID), survey.ENOTFOUND)
		wantCode(t, "other tenant's test", ws.SendTest(ctx, other, e.ID), survey.ENOTFOUND)
		_, err = ws.Disable(ctx, other, e.ID, "x")
		wantCode(t, "other tenant's Disable", err, survey.ENOTFOUND)
		// The same secret opens in another store with the key, not without.
		if _, err := store.NewWebhookStore(st).Get(ctx, tenant, e.ID); err == nil {
			t.Fatal("opened without the key")
		}

		// Deliveries: the last 20, newest first; failures counted.
		start := time.Now().UTC().Truncate(time.Second)
		for i := range 25 {
			d := store.WebhookDelivery{At: start.Add(time.Duration(i) * time.Second), Event: webhook.ResponseCreated, ID: "msg_x", Attempt: 1, Status: 200, Duration: time.Millisecond}
			if i >= 22 {
				d.Status, d.Error = 500, "it answered 500"
			}
			if _, err := ws.Record(ctx, tenant, e.ID, d); err != nil {
				t.Fatal(err)
			}
		}
		got, _ = ws.Get(ctx, tenant, e.ID)
		if len(got.Deliveries) != store.KeptWebhookDelivered || got.Failures != 3 || !got.FailingSince.Equal(start.Add(22*time.Second)) || got.Deliveries[0].Status != 500 || !got.Deliveries[3].OK() {
			t.Fatalf("after 25 deliveries: %d kept, %d failures since %v, first %+v", len(got.Deliveries), got.Failures, got.FailingSince, got.Deliveries[0])
		}
		// A write from another instance is not lost: this one reads again.
		ws2 := newWebhookStore(t, st)
		if changed, err := ws2.Disable(ctx, tenant, e.ID, "failing for a day"); err != nil || !changed {
			t.Fatalf("Disable = %v, %v", changed, err)
		}
		if changed, _ := ws2.Disable(ctx, tenant, e.ID, "again"); changed {
			t.Fatal("disabled twice")
		}
		if _, err := ws.Record(ctx, tenant, e.ID, store.WebhookDelivery{At: time.Now(), Status: 500, Error: "x"}); err != nil {
			t.Fatal(err)
		}
		got, _ = ws.Get(ctx, tenant, e.ID)
		if !got.Disabled || got.DisabledReason != "failing for a day" || got.Failures != 4 || got.Wants(webhook.ResponseCreated, "csat") {
			t.Fatalf("disabled: %+v", got)
		}
		if err := ws.Enable(ctx, tenant, e.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = ws.Get(ctx, tenant, e.ID)
		if got.Disabled || got.Failures != 0 || len(got.Deliveries) != store.KeptWebhookDelivered {
			t.Fatalf("enabled: %+v", got)
		}
		// A rotation: a new secret; the old one signs beside it for a
		// day, sealed at rest too; another tenant cannot rotate it.
		rotated, err := ws.Rotate(ctx, tenant, e.ID)
		if err != nil || rotated.Secret == e.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.PreviousSecret != e.Secret {
			t.Fatalf("Rotate = %+v, %v", rotated, err)
		}
		_, err = ws.Rotate(ctx, other, e.ID)
		wantCode(t, "other tenant's Rotate", err, survey.ENOTFOUND)
		got, _ = newWebhookStore(t, st).Get(ctx, tenant, e.ID)
		now := time.Now()
		if secrets := got.Secrets(now); len(secrets) != 2 || secrets[0] != rotated.Secret || secrets[1] != e.Secret {
			t.Fatalf("secrets after a rotation: %q", secrets)
		}
		if secrets := got.Secrets(now.Add(store.RotationOverlap + time.Minute)); len(secrets) != 1 || secrets[0] != rotated.Secret {
			t.Fatalf("secrets a day after a rotation: %q", secrets)
		}
		ent, _ = st.GetEntity(ctx, store.WebhooksTable, tenant, e.ID)
		if strings.Contains(ent.String("PreviousSecret"), strings.TrimPrefix(e.Secret, "whsec_")) || ent.String("PreviousSecret") == "" {
			t.Fatalf("stored previous secret %q", ent.String("PreviousSecret"))
		}
		if err := ws.Delete(ctx, tenant, e.ID); err != nil {
			t.Fatal(err)
		}
		if eps, _ := ws.List(ctx, tenant); len(eps) != 0 {
			t.Fatalf("after delete: %v", eps)
		}
		wantCode(t, "delete again", ws.Delete(ctx, tenant, e.ID), survey.ENOTFOUND)
		_, err = ws.Record(ctx, tenant, e.ID, store.WebhookDelivery{})
		wantCode(t, "record for a deleted endpoint", err, survey.ENOTFOUND)
	})
}

func asError(err error, target **survey.Error) bool {
	se, ok := err.(*survey.Error)
	*target = se
	return ok
}

// TestWebhookEmit: an event goes to each endpoint that wants it, with a
// stable webhook-id; a large body waits in a blob; a tenant without
// endpoints costs one query per TTL, not one per event; DeleteTenant
// removes the endpoints and spilled bodies.
func TestWebhookEmit(t *testing.T) {
	ctx := context.Background()
	st := counting.New(backends.Local(t))
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	ws := newWebhookStore(t, st)
	tenant, quiet := newTenant(), newTenant()
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: tenant, Name: "T", Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	all, _ := ws.Add(ctx, tenant, store.NewWebhook{URL: "https://a.example/", Events: webhook.Events}, nil)
	_, _ = ws.Add(ctx, tenant, store.NewWebhook{URL: "https://b.example/", Events: []string{webhook.SurveyClosed}}, nil)
	body := func() ([]byte, error) { return []byte(`{"type":"response.created"}`), nil }

	// A tenant without endpoints: one query, then none for 1,000 events.
	calls := st.Total("")
	for range 1000 {
		if n, err := ws.Emit(ctx, quiet, webhook.ResponseCreated, "csat", "a1", body); n != 0 || err != nil {
			t.Fatal(n, err)
		}
	}
	if n := st.Total("") - calls; n != 1 {
		t.Fatalf("1,000 answers of a tenant without endpoints cost %d storage calls, want 1", n)
	}

	n, err := ws.Emit(ctx, tenant, webhook.ResponseCreated, "csat", "answer-1", body)
	if n != 1 || err != nil {
		t.Fatalf("Emit = %d, %v", n, err)
	}
	big := func() ([]byte, error) { return []byte(`{"x":"` + strings.Repeat("a", 60<<10) + `"}`), nil }
	if n, err := ws.Emit(ctx, tenant, webhook.SurveyClosed, "csat", "csat/closed", big); n != 2 || err != nil {
		t.Fatalf("Emit big = %d, %v", n, err)
	}
	msgs, err := st.Dequeue(ctx, store.WebhooksQueue, 32, time.Minute)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("queued %d, %v", len(msgs), err)
	}
	var first store.WebhookMessage
	_ = json.Unmarshal(msgs[0].Data, &first)
	if first.ID != webhook.MessageID(all.ID, webhook.ResponseCreated, "answer-1") || first.Endpoint != all.ID || string(first.Body) != `{"type":"response.created"}` {
		t.Fatalf("message %+v", first)
	}
	var spilled store.WebhookMessage
	_ = json.Unmarshal(msgs[1].Data, &spilled)
	if b, err := ws.Body(ctx, spilled); spilled.Spill == "" || err != nil || len(b) < 60<<10 {
		t.Fatalf("spilled %+v: %d bytes, %v", spilled, len(b), err)
	}
	if _, err := store.DeleteTenant(ctx, st, store.NewTenantStore(st), tenant); err != nil {
		t.Fatal(err)
	}
	if eps, _ := ws.List(ctx, tenant); len(eps) != 0 {
		t.Fatalf("endpoints after DeleteTenant: %v", eps)
	}
	if _, err := ws.Body(ctx, spilled); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("spilled body after DeleteTenant: %v", err)
	}
}

// TestWebhookKinds: an endpoint's kind and its REST-hook mark round-trip
// on both backends; a chat kind takes an https URL only, an unknown kind
// is refused, and a REST hook is standard; EmitNotice queues to each
// endpoint the body its kind makes (signed JSON, a Slack message, a Teams
// card) from one notice.
func TestWebhookKinds(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ws := newWebhookStore(t, st)
		for _, tc := range []struct {
			n     store.NewWebhook
			field string
		}{
			{store.NewWebhook{URL: "http://hooks.slack.com/services/x", Kind: webhook.KindSlack, Events: []string{webhook.ResponseCreated}}, "url"},
			{store.NewWebhook{URL: "http://example.webhook.office.com/x", Kind: webhook.KindTeams, Events: []string{webhook.ResponseCreated}}, "url"},
			{store.NewWebhook{URL: "https://discord.com/api/webhooks/x", Kind: "discord", Events: []string{webhook.ResponseCreated}}, "kind"},
			{store.NewWebhook{URL: "https://hooks.slack.com/services/x", Kind: webhook.KindSlack, Hook: true, Events: []string{webhook.ResponseCreated}}, "kind"},
		} {
			_, err := ws.Add(ctx, tenant, tc.n, nil)
			var se *survey.Error
			if !asError(err, &se) || se.Fields[tc.field] == "" {
				t.Errorf("Add(%+v) = %v, want a message for %s", tc.n, err, tc.field)
			}
		}
		added := map[string]*store.WebhookEndpoint{}
		for _, n := range []store.NewWebhook{
			{URL: "https://hooks.example/in", Events: []string{webhook.ResponseCreated}},
			{URL: "https://hooks.slack.com/services/T0/B0/x", Kind: webhook.KindSlack, Events: []string{webhook.ResponseCreated}},
			{URL: "https://example.webhook.office.com/webhookb2/x", Kind: webhook.KindTeams, Events: []string{webhook.ResponseCreated}},
			{URL: "https://hooks.zapier.com/hooks/standard/1/x", Hook: true, Events: []string{webhook.ResponseCreated}},
		} {
			e, err := ws.Add(ctx, tenant, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			added[e.ID] = e
		}
		// Read back from storage, not from this store's cache.
		eps, err := newWebhookStore(t, st).List(ctx, tenant)
		if err != nil || len(eps) != 4 {
			t.Fatalf("List = %d endpoints, %v", len(eps), err)
		}
		want := map[string][2]any{"hooks.example": {webhook.KindStandard, false}, "hooks.slack.com": {webhook.KindSlack, false},
			"example.webhook.office.com": {webhook.KindTeams, false}, "hooks.zapier.com": {webhook.KindStandard, true}}
		for _, e := range eps {
			host := strings.Split(strings.TrimPrefix(e.URL, "https://"), "/")[0]
			if w := want[host]; e.Kind != w[0] || e.Hook != w[1] || e.Format().Name() != w[0] {
				t.Errorf("%s read back as kind %q, hook %v; want %v", e.URL, e.Kind, e.Hook, w)
			}
		}

		sv := &survey.Survey{Tenant: tenant, Slug: "csat", Title: "CSAT", Questions: []survey.Question{{ID: "q1", Text: "Why?", Type: survey.SimpleText}}}
		a := &survey.SurveyAnswer{ID: "a1", Tenant: tenant, Slug: "csat", CreatedOn: time.Now(), Answers: []survey.QuestionAnswer{{QuestionID: "q1", QuestionText: "Why?", Type: survey.SimpleText, Answer: "Fast & <kind>"}}}
		made := 0
		n, err := ws.EmitNotice(ctx, tenant, webhook.ResponseCreated, "csat", a.ID, func() (webhook.Notice, error) {
			made++
			return webhook.AnswerNotice(sv, a, "https://surveys.example"), nil
		})
		if n != 4 || err != nil || made != 1 {
			t.Fatalf("EmitNotice = %d, %v (notice made %d times); want 4, once", n, err, made)
		}
		// Taken off the queue (the Azure run's queue is shared by the
		// package's tests); another test's messages are put back.
		msgs, err := st.Dequeue(ctx, store.WebhooksQueue, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, m := range msgs {
			var wm store.WebhookMessage
			if err := json.Unmarshal(m.Data, &wm); err != nil || wm.Tenant != tenant {
				_, _ = st.UpdateVisibility(ctx, store.WebhooksQueue, m.ID, m.PopReceipt, 0)
				continue
			}
			_ = st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt)
			seen++
			body := unescaped(t, wm.Body)
			switch e := added[wm.Endpoint]; e.Kind {
			case webhook.KindSlack:
				if !strings.Contains(body, `"blocks"`) || !strings.Contains(body, "Fast &amp; &lt;kind&gt;") {
					t.Errorf("Slack body %s", body)
				}
			case webhook.KindTeams:
				if !strings.Contains(body, `"AdaptiveCard"`) || !strings.Contains(body, "Fast & <kind>") {
					t.Errorf("Teams body %s", body)
				}
			default:
				if !strings.Contains(body, `"type":"response.created"`) || !strings.Contains(body, `"answers"`) {
					t.Errorf("standard body %s", body)
				}
			}
		}
		if seen != 4 {
			t.Errorf("%d messages of the tenant queued, want 4", seen)
		}
		// A test event to a Slack endpoint is a Slack message too.
		for id, e := range added {
			if e.Kind != webhook.KindSlack {
				continue
			}
			if err := ws.SendTest(ctx, tenant, id); err != nil {
				t.Fatal(err)
			}
			msgs, err := st.Dequeue(ctx, store.WebhooksQueue, 32, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range msgs {
				var wm store.WebhookMessage
				if err := json.Unmarshal(m.Data, &wm); err != nil || wm.Tenant != tenant {
					_, _ = st.UpdateVisibility(ctx, store.WebhooksQueue, m.ID, m.PopReceipt, 0)
					continue
				}
				_ = st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt)
				found = wm.Event == webhook.Test && strings.Contains(unescaped(t, wm.Body), `"blocks"`) && strings.Contains(unescaped(t, wm.Body), "A test message from Surveys")
			}
			if !found {
				t.Error("the Slack endpoint's test event is not a Slack message")
			}
		}
	})
}

// unescaped is a JSON body as it reads once decoded (the queue's message
// may carry <, > and & as \u escapes).
func unescaped(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return out.String()
}

// TestWebhookSurveyLinks: the survey.* events of a tenant with a verified
// custom domain link to the survey there, in every kind's body (the
// JSON's publicUrl, the Slack and Teams message links); another tenant's,
// and one whose domain is not proved yet, link to the public URL.
func TestWebhookSurveyLinks(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	ds := store.NewDomainStore(st)
	ws := newWebhookStore(t, st)
	ws.PublicURL, ws.Domains = "https://surveys.example/", ds
	withDomain, without := newTenant(), newTenant()
	for _, tenant := range []string{withDomain, without} {
		for _, n := range []store.NewWebhook{
			{URL: "https://hooks.example/in", Events: []string{webhook.SurveyPublished}},
			{URL: "https://hooks.slack.com/services/T0/B0/x", Kind: webhook.KindSlack, Events: []string{webhook.SurveyPublished}},
			{URL: "https://example.webhook.office.com/webhookb2/x", Kind: webhook.KindTeams, Events: []string{webhook.SurveyPublished}},
		} {
			if _, err := ws.Add(ctx, tenant, n, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	host := "links." + withDomain + ".example"
	if _, err := ds.Claim(ctx, withDomain, host); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Claim(ctx, without, "links."+without+".example"); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.MarkVerified(ctx, withDomain); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{withDomain: "https://" + host + "/survey/" + withDomain + "/csat", without: "https://surveys.example/survey/" + without + "/csat"}
	for tenant := range want {
		if n, err := ws.EmitSurvey(ctx, &survey.Survey{Tenant: tenant, Slug: "csat", Title: "CSAT", State: survey.Published}); n != 3 || err != nil {
			t.Fatalf("EmitSurvey(%s) = %d, %v", tenant, n, err)
		}
	}
	msgs, err := st.Dequeue(ctx, store.WebhooksQueue, 32, time.Minute)
	if err != nil || len(msgs) != 6 {
		t.Fatalf("queued %d, %v; want 6", len(msgs), err)
	}
	for _, m := range msgs {
		var wm store.WebhookMessage
		if err := json.Unmarshal(m.Data, &wm); err != nil {
			t.Fatal(err)
		}
		body := unescaped(t, wm.Body)
		if !strings.Contains(body, want[wm.Tenant]) {
			t.Errorf("%s's survey.published body links elsewhere than %s: %s", wm.Tenant, want[wm.Tenant], body)
		}
		if wm.Tenant == withDomain && strings.Contains(body, "surveys.example/survey/") {
			t.Errorf("the domain's tenant's body still links to the main address: %s", body)
		}
	}
}
