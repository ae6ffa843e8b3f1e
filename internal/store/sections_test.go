package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

func sectionedSample(tenant string) *survey.Survey {
	s := sample(tenant, "Paged")
	s.Sections = []survey.Section{{ID: "intro", Title: "About you"}, {Title: "Colours", Description: "Pick some", Shuffle: true}}
	s.Questions[1].Section, s.Questions[2].Section = "s1", "s1"
	return s
}

// TestSectionsStored: sections are saved with the survey, survive an edit
// of the published survey and a duplicate, and a row written before them
// reads as one page.
func TestSectionsStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sectionedSample(tenant)
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Sections) != 2 || got.Sections[1].ID != "s1" || !got.Sections[1].Shuffle || got.Sections[1].Description != "Pick some" {
			t.Fatalf("sections %+v", got.Sections)
		}
		sections := func(sv *survey.Survey) string {
			out := ""
			for _, q := range sv.Questions {
				out += q.Section + ","
			}
			return out
		}
		if want := "intro,intro,s1,s1,"; sections(got) != want {
			t.Errorf("question sections %s, want %s", sections(got), want)
		}
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		// An edit of the published survey: a new section at the end.
		got, _ = ss.Get(ctx, tenant, s.Slug)
		got.Sections = append(got.Sections, survey.Section{Title: "Last"})
		got.Questions[3].Section = "s2"
		if err := ss.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		if len(got.Sections) != 3 || got.Sections[2].Title != "Last" || sections(got) != "intro,intro,s1,s2," || got.State != survey.Published {
			t.Errorf("after the edit: %+v %s", got.Sections, sections(got))
		}
		if len(got.Visible().Pages()) != 3 {
			t.Errorf("pages %+v", got.Pages())
		}
		cp := got.Duplicate(got.CreatedOn)
		if err := ss.Create(ctx, cp); err != nil {
			t.Fatal(err)
		}
		dup, _ := ss.Get(ctx, tenant, cp.Slug)
		if len(dup.Sections) != 3 || sections(dup) != sections(got) {
			t.Errorf("duplicate %+v %s", dup.Sections, sections(dup))
		}
		// Closing keeps them (the row is rewritten).
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Closed); err != nil {
			t.Fatal(err)
		}
		if got, _ = ss.Get(ctx, tenant, s.Slug); len(got.Sections) != 3 {
			t.Errorf("closed: %+v", got.Sections)
		}

		// A survey without sections has no Sections property.
		plain := sample(tenant, "Plain")
		if err := ss.Create(ctx, plain); err != nil {
			t.Fatal(err)
		}
		e, err := st.GetEntity(ctx, store.SurveysTable, tenant, tenant+"_"+plain.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.Properties["Sections"]; ok {
			t.Error("a survey without sections stores a Sections property")
		}
		if got, _ := ss.Get(ctx, tenant, plain.Slug); got.Sections != nil || len(got.Pages()) != 1 {
			t.Errorf("plain: %+v", got.Sections)
		}
	})
}

// TestResumeStore: one blob per saved respondent, replaced on a new save,
// removed on Delete and with its survey.
func TestResumeStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		rs := store.NewResumeStore(st)
		s := sectionedSample(tenant)
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		k1, k2 := store.NewResumeKey(), store.NewResumeKey()
		if k1 == k2 || !store.ValidResumeKey(k1) || store.ValidResumeKey("../"+k1[3:]) {
			t.Fatalf("keys %q %q", k1, k2)
		}
		for _, k := range []string{k1, k2, k1} {
			if err := rs.Save(ctx, tenant, s.Slug, k, []byte("state of "+k)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := rs.Get(ctx, tenant, s.Slug, k1)
		if err != nil || !bytes.Equal(got, []byte("state of "+k1)) {
			t.Fatalf("Get: %q %v", got, err)
		}
		if _, err := rs.Get(ctx, tenant, s.Slug, "nothex"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("bad key: %v", err)
		}
		if _, err := rs.Get(ctx, tenant, "other", k1); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("another survey's key: %v", err)
		}
		if err := rs.Delete(ctx, tenant, s.Slug, k1); err != nil {
			t.Fatal(err)
		}
		if _, err := rs.Get(ctx, tenant, s.Slug, k1); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("after Delete: %v", err)
		}
		if err := ss.Delete(ctx, tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		if _, err := rs.Get(ctx, tenant, s.Slug, k2); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("after the survey's Delete: %v", err)
		}
	})
}
