package surveytest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// examples holds an example of every kind, by the kind's type, in the
// registry's order. A kind's example is part of the kind (beside its file
// kind_<key>.go, its partials and its registry entry): a new kind gets one
// here, or the conformance and fuzz tests of every kind fail (survey's
// TestKindConformance, FuzzKindAnswer and FuzzDefinition, and
// TestExamples here). The definitions and the values sent carry, here and
// there, what normalizing and answering clean away (spaces, leading
// zeros, empty choices, a choice sent twice).
var examples = map[survey.QuestionType]example{
	survey.SimpleText:       simpleText,
	survey.MultipleChoice:   multipleChoice,
	survey.FiveStars:        fiveStars,
	survey.ShortText:        shortText,
	survey.Number:           number,
	survey.Date:             date,
	survey.LinearScale:      linearScale,
	survey.NetPromoterScore: netPromoterScore,
	survey.Checkboxes:       checkboxes,
	survey.Dropdown:         dropdown,
	survey.Matrix:           matrix,
	survey.Ranking:          ranking,
	survey.FileUpload:       fileUpload,
	survey.YesNo:            yesNo,
	survey.Consent:          consent,
	survey.Slider:           slider,
	survey.Contact:          contact,
	survey.PictureChoice:    pictureChoice,
}

func simpleText() (survey.Question, func(*rand.Rand) survey.Form) {
	return survey.Question{Text: "What should we improve?", Type: survey.SimpleText}, func(r *rand.Rand) survey.Form {
		// Words from a vocabulary larger than a summary keeps, stop words
		// and punctuation.
		text := "The"
		for n := 1 + r.IntN(20); n > 0; n-- {
			text += fmt.Sprintf(" w%dx,", r.IntN(3*survey.MaxSummaryWords)) + []string{"", " it's", " and", " Été"}[r.IntN(4)]
		}
		return survey.Value(text)
	}
}

func multipleChoice() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Which of our products do you use most?", Type: survey.MultipleChoice,
		PossibleAnswers: []string{"Coffee", " Tea", "Cake", ""}, Other: true, Shuffle: true}
	return q, func(r *rand.Rand) survey.Form {
		if r.IntN(5) == 0 {
			// The Other text, with Other ticked (as the page sends it) or
			// not (typing in it is choosing it).
			return survey.Form{"": {[]string{"", "(other)"}[r.IntN(2)]}, "other": {[]string{"Mate", "hot chocolate", "Water and more water"}[r.IntN(3)]}}
		}
		return survey.Value([]string{"Coffee", "Tea", "Cake ", "Coffee"}[r.IntN(4)])
	}
}

func fiveStars() (survey.Question, func(*rand.Rand) survey.Form) {
	return survey.Question{Text: "How satisfied are you with our service?", Type: survey.FiveStars}, func(r *rand.Rand) survey.Form {
		return survey.Value([]string{"1", "2", "3", "4", "5", " 05"}[r.IntN(6)])
	}
}

func shortText() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Your e-mail address, if we may answer you", Type: survey.ShortText, Format: "email", Min: "6", Max: "0100"}
	return q, func(r *rand.Rand) survey.Form {
		name := []string{"ana", "bo.berg", "x_y+tag", "Émile"}[r.IntN(4)]
		host := []string{"example.com", "adatum.example", "mail.fabrikam.example"}[r.IntN(3)]
		return survey.Value([]string{"", " ", "\t"}[r.IntN(3)] + name + fmt.Sprint(r.IntN(100)) + "@" + host + " ")
	}
}

func number() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How many cups do you drink a week?", Type: survey.Number, Min: "0", Max: "1000,50"}
	return q, func(r *rand.Rand) survey.Form {
		switch r.IntN(4) {
		case 0:
			return survey.Value(strconv.Itoa(r.IntN(1001)))
		case 1:
			return survey.Value(fmt.Sprintf(" %d,%02d", r.IntN(1000), r.IntN(100)))
		case 2:
			return survey.Value(fmt.Sprintf("+00%d.%d0", r.IntN(1000), r.IntN(10)))
		}
		return survey.Value([]string{"0.1", "0.2", "-0", "1000.5", ".5", "7."}[r.IntN(6)])
	}
}

func date() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "When did you last visit us?", Type: survey.Date, Min: "2020-01-01", Max: "2026-12-31"}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	return q, func(r *rand.Rand) survey.Form {
		d := start.AddDate(0, 0, r.IntN(7*365+1)).Format(time.DateOnly)
		return survey.Value([]string{"", " "}[r.IntN(2)] + d)
	}
}

func linearScale() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How easy was it to find what you needed?", Type: survey.LinearScale, Scale: 7, LowLabel: " Very hard", HighLabel: "Very easy"}
	return q, func(r *rand.Rand) survey.Form {
		return survey.Value([]string{"1", "2", "3", "4", "5", "6", "7", " 7", "03"}[r.IntN(9)])
	}
}

func netPromoterScore() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How likely are you to recommend us to a friend?", Type: survey.NetPromoterScore}
	return q, func(r *rand.Rand) survey.Form {
		return survey.Value([]string{"0", "3", "6", "7", "8", "9", "10", " 10", "08"}[r.IntN(9)])
	}
}

func checkboxes() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Which of our products do you buy?", Type: survey.Checkboxes,
		PossibleAnswers: []string{"Coffee", " Tea", "Cake", "Biscuits", ""}, Other: true, Shuffle: true, Min: "1", Max: "03"}
	return q, func(r *rand.Rand) survey.Form {
		// One to three selections, some sent twice, one of them perhaps
		// an other text.
		f := survey.Form{}
		n := 1 + r.IntN(3)
		if r.IntN(4) == 0 {
			f["other"] = []string{[]string{"Mate", "hot chocolate", " Water and more water "}[r.IntN(3)]}
			n--
		}
		for _, i := range r.Perm(4)[:n] {
			f[""] = append(f[""], []string{"Coffee", "Tea ", "Cake", "Biscuits"}[i])
		}
		if n > 0 && r.IntN(5) == 0 {
			f[""] = append(f[""], f[""][0], "")
		}
		return f
	}
}

func dropdown() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Which country do you live in?", Type: survey.Dropdown, Shuffle: true}
	for i := 1; i <= 60; i++ {
		q.PossibleAnswers = append(q.PossibleAnswers, fmt.Sprintf("Country %d", i))
	}
	return q, func(r *rand.Rand) survey.Form {
		// Skewed, so that the chart shows the most chosen.
		return survey.Value(fmt.Sprintf(" Country %d", 1+r.IntN(1+r.IntN(60))))
	}
}

func matrix() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How do you rate us on each of these?", Type: survey.Matrix,
		Rows: []string{"Speed", " Price", "Support", ""}}
	return q, func(r *rand.Rand) survey.Form {
		f := survey.Form{}
		for i := range 3 {
			f[strconv.Itoa(i)] = []string{[]string{"1", "2", "3", "4", "5", " 05", "+3"}[r.IntN(7)]}
		}
		return f
	}
}

func ranking() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "What matters most to you?", Type: survey.Ranking,
		PossibleAnswers: []string{"Price", "Quality ", "Delivery"}, Shuffle: true}
	return q, func(r *rand.Rand) survey.Form {
		f := survey.Form{}
		for i, p := range r.Perm(3) {
			f[strconv.Itoa(i)] = []string{[]string{"1", "2", "3"}[p]}
		}
		if r.IntN(5) == 0 {
			f["0"][0] = " 0" + f["0"][0]
		}
		return f
	}
}

func fileUpload() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Your CV and a photo, if you like", Type: survey.FileUpload,
		PossibleAnswers: []string{"pdf", " Images", "Office documents", ""}, Max: "03", Scale: 5}
	types := []string{"application/pdf", "image/png", "image/jpeg; charset=binary", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
	names := []string{"cv.pdf", "C:\\Users\\ana\\photo.png", "../../me.jpg", "Lettre de motivation été.docx", " .hidden"}
	return q, func(r *rand.Rand) survey.Form {
		// One to three files, as the server describes them after storing
		// them: the answer's ID, and random keys.
		id := fmt.Sprintf("%019d-%06x", 638000000000000000+r.Int64N(1e15), r.IntN(1<<24))
		var files []survey.UploadedFile
		for n := 1 + r.IntN(3); n > 0; n-- {
			files = append(files, survey.UploadedFile{Name: names[r.IntN(len(names))], Size: r.Int64N(5 << 20),
				Type: types[r.IntN(len(types))], Key: fmt.Sprintf("%s/%016x", id, r.Uint64())})
		}
		return survey.Value(survey.EncodeFiles(files))
	}
}

func yesNo() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Would you buy from us again?", Type: survey.YesNo}
	return q, func(r *rand.Rand) survey.Form {
		return survey.Value([]string{"Yes", "No", " yes", "NO", "Yes"}[r.IntN(5)])
	}
}

func consent() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Your consent", Type: survey.Consent,
		Statement: " I agree that Adatum keeps my answers for a year\r\nto improve its shops. "}
	return q, func(r *rand.Rand) survey.Form {
		return survey.Value([]string{"accepted", " accepted", "Accepted", "true"}[r.IntN(4)])
	}
}

func slider() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How warm should the office be?", Type: survey.Slider, Min: "-10", Max: "+030", Step: "5", LowLabel: "Cold", HighLabel: "Hot"}
	return q, func(r *rand.Rand) survey.Form {
		v := strconv.Itoa(-10 + 5*r.IntN(9))
		switch r.IntN(3) {
		case 0: // the page: the range, and its box ticked
			return survey.Form{"slider": {v}, "set": {"1"}}
		case 1: // an API client: the number itself
			return survey.Value(" " + v)
		}
		// Both: the number sent wins over the range.
		return survey.Form{"": {v}, "slider": {"30"}, "set": {"1"}}
	}
}

func contact() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "How can we reach you?", Type: survey.Contact, Parts: map[string]string{
		"name": "required", " EMAIL": "Required", "phone": "optional", "street": "optional", "city": "optional", "postcode": "optional", "country": "optional"}}
	return q, func(r *rand.Rand) survey.Form {
		f := survey.Form{
			"name":  {[]string{"Ana Berg", " Émile  Zola ", "Bo"}[r.IntN(3)]},
			"email": {[]string{"ana@example.com", "emile@adatum.example ", "bo+x@mail.fabrikam.example"}[r.IntN(3)]},
		}
		if r.IntN(2) == 0 {
			f["phone"] = []string{[]string{"+44 20 7946 0000", "(030) 123-4567", "0612345678"}[r.IntN(3)]}
		}
		if r.IntN(2) == 0 {
			f["street"], f["city"], f["postcode"], f["country"] = []string{"1 Main Street"}, []string{"Leeds"}, []string{"LS1 4AP"}, []string{"United Kingdom"}
		}
		return f
	}
}

func pictureChoice() (survey.Question, func(*rand.Rand) survey.Form) {
	q := survey.Question{Text: "Which of these colours would you paint the shop?", Type: survey.PictureChoice, Multiple: true, Shuffle: true, Min: "1", Max: "03",
		Pictures: []survey.Picture{
			{Label: "Red", Alt: "A shop front painted red", Image: "adatum-0a1b2c3d4e5f.png"},
			{Label: " Sea green ", Alt: " A shop front painted sea green", Image: "adatum-00000000beef.jpg"},
			{},
			{Label: "White", Alt: "A shop front painted white", Image: "adatum-ffffffffffff.png"},
		}}
	return q, func(r *rand.Rand) survey.Form {
		// One to three choices, one of them perhaps sent twice.
		f := survey.Form{}
		for _, i := range r.Perm(3)[:1+r.IntN(3)] {
			f[""] = append(f[""], []string{"Red", "Sea green ", "White"}[i])
		}
		if r.IntN(5) == 0 {
			f[""] = append(f[""], f[""][0], "")
		}
		return f
	}
}
