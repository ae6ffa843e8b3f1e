package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// seedMarker is written once the demo tenants exist, so that they are made
// on an empty store only, once, even when a first start crashed part-way.
const seedMarker = "demo-seeded"

// Seed creates the demo tenants Adatum and Fabrikam, each with a published
// sample survey of all three question types, unless it has done so before.
// It reports whether it created anything.
func Seed(ctx context.Context, st storage.Storage) (bool, error) {
	if _, err := st.GetBlob(ctx, SystemContainer, seedMarker); err == nil {
		return false, nil
	} else if !isNotFound(err) {
		return false, mapErr(err, "Seed marker")
	}
	tenants, surveys := NewTenantStore(st), NewSurveyStore(st)
	for _, d := range []struct{ key, name, title string }{
		{"adatum", "Adatum", "Adatum customer satisfaction"},
		{"fabrikam", "Fabrikam", "Fabrikam product feedback"},
	} {
		if _, err := tenants.Get(ctx, d.key); err == nil {
			continue // made by a start that crashed before the marker
		} else if survey.ErrorCode(err) != survey.ENOTFOUND {
			return false, err
		}
		existing, err := surveys.List(ctx, d.key)
		if err != nil {
			return false, err
		}
		if len(existing) == 0 {
			if err := surveys.Create(ctx, sampleSurvey(d.key, d.title)); err != nil {
				return false, fmt.Errorf("store: seed %s survey: %w", d.key, err)
			}
		}
		t := &survey.Tenant{Key: d.key, Name: d.name, Plan: survey.Premium}
		if err := tenants.Create(ctx, t); err != nil && survey.ErrorCode(err) != survey.ECONFLICT {
			return false, fmt.Errorf("store: seed tenant %s: %w", d.key, err)
		}
	}
	_, err := st.PutBlob(ctx, SystemContainer, seedMarker, []byte("adatum fabrikam"), storage.PutOptions{ContentType: "text/plain"})
	if err != nil && !errors.Is(err, storage.ErrPrecondition) {
		return false, mapErr(err, "Seed marker")
	}
	return true, nil
}

func sampleSurvey(tenant, title string) *survey.Survey {
	return &survey.Survey{
		Tenant: tenant,
		Title:  title,
		State:  survey.Published,
		Listed: true,
		Questions: []survey.Question{
			{Text: "How satisfied are you with our service?", Type: survey.FiveStars},
			{Text: "Which of our products do you use most?", Type: survey.MultipleChoice,
				PossibleAnswers: []string{"Web portal", "Mobile app", "Desktop client", "API"}},
			{Text: "How likely are you to recommend us to a friend?", Type: survey.FiveStars},
			{Text: "What should we improve?", Type: survey.SimpleText},
		},
	}
}
