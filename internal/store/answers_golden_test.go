package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// goldenAnswers are two answers to enqueue in one message: one with every
// field of the queued format and strings JSON escapes (quotes, a
// backslash, control characters, <>&, U+2028, a byte that is not UTF-8),
// one with few; and the same answer twice, queued once.
func goldenAnswers() []survey.SurveyAnswer {
	at := time.Date(2026, 12, 6, 20, 30, 1, 123456789, time.UTC)
	whole := survey.SurveyAnswer{ID: "0639000000000000001", Tenant: "adatum", Slug: "adatum-customer-satisfaction",
		Title: `Adatum "customer" <satisfaction> & more`, CreatedOn: at,
		Answers: []survey.QuestionAnswer{
			{QuestionID: "q_000", QuestionText: "Stars", Type: survey.FiveStars, Answer: "4"},
			{QuestionID: "q_001", QuestionText: "Features", Type: survey.Checkboxes, Answer: `["Reports","Other: a \"tea\" \\ pot"]`},
			{QuestionID: "q_002", QuestionText: "Improve", Type: survey.SimpleText, Answer: "Line one\nline\ttwo\r\b\f\x01 <b>&amp;</b> été \u2028\u2029 日本 \xff end"},
			{QuestionID: "q_003", QuestionText: "Contact", Type: survey.Contact, Answer: `{"email":"ana@example.com","name":"Ana"}`},
		},
		Hidden:    map[string]string{"source": "news<letter>", "campaign": "b\"2"},
		Values:    map[string]string{"total": "7", "band": "high"},
		Quotas:    []string{"q/age/young", "q/region/eu"},
		OverQuota: []string{"q/role/manager"},
		Partial:   true,
	}
	few := survey.SurveyAnswer{ID: "0639000000000000002", Tenant: "adatum", Slug: "adatum-customer-satisfaction", CreatedOn: at.Add(time.Second).Truncate(time.Second),
		Answers: []survey.QuestionAnswer{{QuestionID: "q_000", QuestionText: "Stars", Type: survey.FiveStars, Answer: "5"}}}
	none := survey.SurveyAnswer{ID: "0639000000000000003", Tenant: "adatum", Slug: "adatum-customer-satisfaction", CreatedOn: at.In(time.FixedZone("", 3600))}
	return []survey.SurveyAnswer{whole, few, whole, none}
}

// TestAnswerMessageBytes: the message EnqueueEach writes for the golden
// answers, byte for byte, on both plans' queues: what workers of this and
// earlier versions read (the format is not changed by a faster encoding).
func TestAnswerMessageBytes(t *testing.T) {
	for _, tc := range []struct {
		plan  survey.Plan
		queue string
		want  string
	}{
		{survey.Premium, store.PremiumAnswersQueue, goldenPremium},
		{"", store.AnswersQueue, goldenStandard},
	} {
		ctx := context.Background()
		st := backends.Local(t)
		if err := store.Init(ctx, st); err != nil {
			t.Fatal(err)
		}
		as := store.NewSurveyAnswerStore(st)
		for i, err := range as.EnqueueEach(ctx, tc.plan, goldenAnswers()) {
			if err != nil {
				t.Fatalf("answer %d: %v", i, err)
			}
		}
		msgs, err := st.Dequeue(ctx, tc.queue, 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 1 {
			t.Fatalf("%d messages on %s, want 1", len(msgs), tc.queue)
		}
		if got := string(msgs[0].Data); got != tc.want {
			t.Errorf("plan %q: message\n%s\nwant\n%s", tc.plan, got, tc.want)
		}
	}
}

const goldenPremium = `{"answers":{"format":2},"queued":[{"id":"0639000000000000001","tenant":"adatum","slug":"adatum-customer-satisfaction","title":"Adatum \"customer\" <satisfaction> & more","createdOn":"2026-12-06T20:30:01.123456789Z","values":[{"q":"q_000","a":"4"},{"q":"q_001","a":"[\"Reports\",\"Other: a \\\"tea\\\" \\\\ pot\"]"},{"q":"q_002","a":"Line one\nline\ttwo\r\b\f\u0001 <b>&amp;</b> été \u2028\u2029 日本 \ufffd end"},{"q":"q_003","a":"{\"email\":\"ana@example.com\",\"name\":\"Ana\"}"}],"hidden":{"campaign":"b\"2","source":"news<letter>"},"vars":{"band":"high","total":"7"},"partial":true,"quotas":["q/age/young","q/region/eu"],"overQuota":["q/role/manager"]},{"id":"0639000000000000002","tenant":"adatum","slug":"adatum-customer-satisfaction","createdOn":"2026-12-06T20:30:02Z","values":[{"q":"q_000","a":"5"}]},{"id":"0639000000000000003","tenant":"adatum","slug":"adatum-customer-satisfaction","createdOn":"2026-12-06T21:30:01.123456789+01:00"}],"plan":"Premium"}`

const goldenStandard = `{"answers":{"format":2},"queued":[{"id":"0639000000000000001","tenant":"adatum","slug":"adatum-customer-satisfaction","title":"Adatum \"customer\" <satisfaction> & more","createdOn":"2026-12-06T20:30:01.123456789Z","values":[{"q":"q_000","a":"4"},{"q":"q_001","a":"[\"Reports\",\"Other: a \\\"tea\\\" \\\\ pot\"]"},{"q":"q_002","a":"Line one\nline\ttwo\r\b\f\u0001 <b>&amp;</b> été \u2028\u2029 日本 \ufffd end"},{"q":"q_003","a":"{\"email\":\"ana@example.com\",\"name\":\"Ana\"}"}],"hidden":{"campaign":"b\"2","source":"news<letter>"},"vars":{"band":"high","total":"7"},"partial":true,"quotas":["q/age/young","q/region/eu"],"overQuota":["q/role/manager"]},{"id":"0639000000000000002","tenant":"adatum","slug":"adatum-customer-satisfaction","createdOn":"2026-12-06T20:30:02Z","values":[{"q":"q_000","a":"5"}]},{"id":"0639000000000000003","tenant":"adatum","slug":"adatum-customer-satisfaction","createdOn":"2026-12-06T21:30:01.123456789+01:00"}]}`
