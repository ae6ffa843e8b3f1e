package survey

// Retention rules: a tenant's default and a survey's own say how many
// days a survey's answers are kept before the retention worker deletes
// them (worker/answerretention.go). They are off unless set.

// MaxRetainDays bounds a retention period: ten years.
const MaxRetainDays = 3650

// KeepAnswers, as a survey's RetainDays, keeps its answers whatever its
// tenant's default.
const KeepAnswers = -1

// RetentionDays is how many days the survey's answers are kept under
// its tenant's default tenantDays; 0 keeps them.
func (s *Survey) RetentionDays(tenantDays int) int {
	switch {
	case s.RetainDays == KeepAnswers:
		return 0
	case s.RetainDays > 0:
		return s.RetainDays
	}
	return max(tenantDays, 0)
}

// ValidRetainDays checks a retention period of days (0: none), saying
// what to fix.
func ValidRetainDays(days int) error {
	if days < 0 || days > MaxRetainDays {
		return Errorf(EINVALID, "Give a number of days from 1 to %d, or leave it empty to keep the answers.", MaxRetainDays)
	}
	return nil
}
