package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// seedMarker is written once the demo tenants exist, so that they are made
// on an empty store only, once, even when a first start crashed part-way.
const seedMarker = "demo-seeded"

// Seed creates the demo tenants Adatum and Fabrikam, each with a published
// sample survey (sampleSurvey), unless it has done so before.
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
			s := sampleSurvey(d.key, d.title)
			if d.key == "adatum" {
				// Its picture choice's pictures: a crash before the
				// survey is made leaves them unused, as a designer's
				// upload whose survey was never saved.
				pics, err := seedPictures(ctx, NewLogoStore(st), d.key)
				if err != nil {
					return false, fmt.Errorf("store: seed %s pictures: %w", d.key, err)
				}
				for i := range s.Questions {
					if s.Questions[i].Type == survey.PictureChoice {
						s.Questions[i].Pictures = pics
					}
				}
			}
			if err := surveys.Create(ctx, s); err != nil {
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

// sampleSurvey is a tenant's demo survey: Adatum's asks one question of
// every kind on one page (its first four required, as the demo always had
// them; the others optional), Fabrikam's is fabrikamSurvey.
func sampleSurvey(tenant, title string) *survey.Survey {
	s := &survey.Survey{Tenant: tenant, Title: title, State: survey.Published, Listed: true}
	if tenant != "adatum" {
		fabrikamSurvey(s)
		return s
	}
	s.Description = "Tell us how we are doing: about three minutes, and only the first four questions need an answer."
	s.ThankYou = "Thank you! Every answer is read by the team that builds what you use, and shapes what we build next."
	s.Questions = []survey.Question{
		{Text: "How satisfied are you with our service?", Type: survey.FiveStars},
		{Text: "Which of our products do you use most?", Type: survey.MultipleChoice, Other: true,
			PossibleAnswers: []string{"Web portal", "Mobile app", "Desktop client", "API"}},
		{Text: "How likely are you to recommend us to a friend or colleague?", Type: survey.NetPromoterScore},
		{Text: "What should we improve?", Type: survey.SimpleText, Help: "Anything goes: we read every answer."},
		{Text: "Which features do you use?", Type: survey.Checkboxes, Optional: true, Other: true, Help: "Choose all that apply.",
			PossibleAnswers: []string{"Reports", "Dashboards", "Alerts", "Integrations", "Offline mode"}},
		{Text: "How easy was it to get started?", Type: survey.LinearScale, Optional: true, Scale: 7, LowLabel: "Very hard", HighLabel: "Very easy"},
		{Text: "How would you rate each of these?", Type: survey.Matrix, Optional: true,
			Rows: []string{"Speed", "Reliability", "Support", "Price"}, PossibleAnswers: []string{"Poor", "Fair", "Good", "Excellent"}},
		{Text: "Rank what matters most to you", Type: survey.Ranking, Optional: true, Help: "1 is what matters most.",
			PossibleAnswers: []string{"Price", "Quality", "Support", "Speed"}},
		{Text: "Where are you based?", Type: survey.Dropdown, Optional: true,
			PossibleAnswers: []string{"Australia", "Brazil", "Canada", "France", "Germany", "India", "Japan", "Netherlands", "Spain", "United Kingdom", "United States", "Elsewhere"}},
		{Text: "How many people in your team use Adatum?", Type: survey.Number, Optional: true, Integer: true, Min: "1", Max: "100000"},
		{Text: "When did you start using Adatum?", Type: survey.Date, Optional: true, Min: "2000-01-01"},
		{Text: "Your e-mail address, if you would like a reply", Type: survey.ShortText, Optional: true, Format: "email"},
		{Text: "A screenshot or a document, if it helps", Type: survey.FileUpload, Optional: true, Max: "3",
			PossibleAnswers: []string{"Images", "PDF", "Text and CSV"}, Help: "Only our team sees it."},
		{Text: "Would you choose Adatum again?", Type: survey.YesNo, Optional: true},
		{Text: "May we follow up?", Type: survey.Consent, Optional: true,
			Statement: "Adatum may contact me about my answers, once, within the next three months."},
		{Text: "How can we reach you?", Type: survey.Contact, Optional: true, Help: "Only if you agreed above that we may follow up.",
			Parts: map[string]string{"name": survey.PartRequired, "email": survey.PartRequired, "phone": survey.PartOptional, "country": survey.PartOptional}},
		{Text: "How many hours a week do you spend in Adatum?", Type: survey.Slider, Optional: true, Min: "0", Max: "40", Step: "1", LowLabel: "None", HighLabel: "All week"},
		// Its pictures are drawn and stored by Seed (seedPictures).
		{Text: "Which look would you like for our new home screen?", Type: survey.PictureChoice, Optional: true},
	}
	return s
}

// fabrikamSurvey makes s Fabrikam's demo survey: three pages that show
// what a survey can carry beyond its questions. Its link may carry a
// hidden field (?source=newsletter); the second page's title and
// questions recall the first page's answers ({{product}}, {{name}}); its
// quiz is scored, the thank-you message chosen by the score (an outcome)
// with the right answers shown; and what a respondent leaves unfinished
// is kept as a partial answer after an hour.
func fabrikamSurvey(s *survey.Survey) {
	s.Description = "A few questions about the Fabrikam product you own, and a three-question quiz on getting the most from it."
	s.ThankYou = "Thank you for your answers."
	s.HiddenFields = []string{"source"}
	s.KeepPartial = time.Hour
	s.Sections = []survey.Section{
		{ID: "about", Title: "Your Fabrikam"},
		{ID: "quiz", Title: "Three questions about your {{product|Fabrikam}}",
			Description: "See how much you know, {{name|friend}}: your score comes with the thank-you page."},
		{ID: "last", Title: "Anything else?"},
	}
	s.Questions = []survey.Question{
		{ID: "product", Section: "about", Text: "Which product do you own?", Type: survey.Dropdown,
			PossibleAnswers: []string{"Fabrikam Fiber", "Fabrikam Home", "Fabrikam Go", "Fabrikam Studio"}},
		{ID: "name", Section: "about", Text: "What should we call you?", Type: survey.ShortText, Optional: true, Help: "A first name is plenty."},
		{ID: "build", Section: "about", Text: "How would you rate its build quality?", Type: survey.LinearScale, Scale: 5, LowLabel: "Poor", HighLabel: "Excellent"},
		{ID: "heard", Section: "about", Text: "Where did you hear about us?", Type: survey.Checkboxes, Optional: true, Other: true, Shuffle: true,
			PossibleAnswers: []string{"A friend", "A shop", "Social media", "A review site"}},
		{ID: "warranty", Section: "quiz", Text: "How long is the warranty of every Fabrikam product?", Type: survey.MultipleChoice,
			PossibleAnswers: []string{"One year", "Two years", "Five years"}, Correct: []string{"Two years"},
			Feedback: "Every Fabrikam product has a two-year warranty, parts and repairs included."},
		{ID: "updates", Section: "quiz", Text: "Does your {{product|product}} install its updates at night?", Type: survey.YesNo,
			Correct: []string{survey.AnswerYes}, Feedback: "Updates install overnight; Settings › Updates changes the hour."},
		{ID: "share", Section: "quiz", Text: "Which of these can you share with your household?", Type: survey.Checkboxes,
			PossibleAnswers: []string{"Profiles", "Saved settings", "Your password"}, Correct: []string{"Profiles", "Saved settings"},
			Feedback: "Profiles and saved settings can be shared; a password never is."},
		{ID: "photo", Section: "last", Text: "A photo of your {{product|product}}, if you would like to show us something", Type: survey.FileUpload, Optional: true,
			Max: "3", PossibleAnswers: []string{"Images", "PDF"}, Help: "Only Fabrikam's support team sees it."},
		{ID: "more", Section: "last", Text: "Anything else you would like to tell us?", Type: survey.SimpleText, Optional: true},
	}
	s.ShowCorrect = true
	s.Outcomes = []survey.Outcome{
		{Var: survey.ScoreName, Min: 3, Message: "Full marks, {{name|friend}}: 3 out of 3. You know your {{product|Fabrikam}} inside out."},
		{Var: survey.ScoreName, Min: 0, Message: "Thank you, {{name|friend}}. You scored {{score}} out of 3: the right answers are below."},
	}
}
