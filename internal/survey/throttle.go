package survey

import "time"

// SignInFailureMessage is the one answer to a refused sign-in, whether the
// account is unknown, the password wrong, or the attempts throttled: it
// tells nothing of which.
const SignInFailureMessage = "Email or password is wrong, or too many attempts: wait a minute and try again."

// MaxThrottleDelay is the longest wait between throttled attempts.
const MaxThrottleDelay = 15 * time.Minute

// ThrottleDelay is how long after the last counted attempt the next one
// must wait, after failures counted attempts of which free cost nothing:
// none up to free, then 2^(failures-free) seconds, at most
// MaxThrottleDelay.
func ThrottleDelay(failures, free int64) time.Duration {
	n := failures - free
	if n < 0 {
		return 0
	}
	if n >= 10 { // 2^10 s is past the cap
		return MaxThrottleDelay
	}
	return min(time.Duration(1<<n)*time.Second, MaxThrottleDelay)
}
