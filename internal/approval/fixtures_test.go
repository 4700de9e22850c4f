package approval

import "time"

// hangGuard bounds every wait in the tests; it only fires when a test is
// broken, so it can be generous.
const hangGuard = 20 * time.Second

func testRequest(id, command string) Request {
	return Request{
		ID:      id,
		Client:  "hermes@build-box",
		Session: "default",
		Cwd:     "/home/ada/project",
		Command: command,
		Why:     "not on the safe list: rm",
		Timeout: 120 * time.Second,
	}
}

// fixedNow is an Options.Now for tests.
func fixedNow() time.Time {
	return time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
}
