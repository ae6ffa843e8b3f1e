package store

import "github.com/surveys-dev/surveys/internal/survey"

// appendAnswerLine appends a's segment line, encodeJSON's encoding of it
// and a newline, and reports whether it could. It writes the answer's
// fields directly, in the struct's order and with its omitempty rules,
// where encoding/json walks them by reflection (the worker encodes every
// answer it files), with the strings, lists and maps of the queue's
// messages (answersjson.go). A time encoding/json cannot write makes it
// report false: the caller then encodes with encoding/json. What it writes
// is encodeJSON's, byte for byte (FuzzAnswerBlob).
func appendAnswerLine(dst []byte, a *survey.SurveyAnswer) ([]byte, bool) {
	t, err := a.CreatedOn.MarshalJSON()
	if err != nil {
		return dst, false
	}
	dst = appendJSONString(append(dst, `{"id":`...), a.ID)
	dst = appendJSONString(append(dst, `,"tenant":`...), a.Tenant)
	dst = appendJSONString(append(dst, `,"slug":`...), a.Slug)
	dst = appendJSONString(append(dst, `,"title":`...), a.Title)
	dst = append(append(dst, `,"createdOn":`...), t...)
	dst = append(dst, `,"answers":`...)
	if a.Answers == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range a.Answers {
			qa := &a.Answers[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(append(dst, `{"questionId":`...), qa.QuestionID)
			dst = appendJSONString(append(dst, `,"questionText":`...), qa.QuestionText)
			dst = appendJSONString(append(dst, `,"type":`...), string(qa.Type))
			dst = appendJSONString(append(dst, `,"answer":`...), qa.Answer)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(a.Hidden) > 0 {
		dst = appendJSONObject(append(dst, `,"hidden":`...), a.Hidden)
	}
	if len(a.Values) > 0 {
		dst = appendJSONObject(append(dst, `,"values":`...), a.Values)
	}
	if a.Partial {
		dst = append(dst, `,"partial":true`...)
	}
	if len(a.Quotas) > 0 {
		dst = appendJSONList(append(dst, `,"quotas":`...), a.Quotas)
	}
	if len(a.OverQuota) > 0 {
		dst = appendJSONList(append(dst, `,"overQuota":`...), a.OverQuota)
	}
	return append(dst, '}', '\n'), true
}
