package proclab

import "testing"

func TestParseStatusKB(t *testing.T) {
	status := "Name:\tteammemd\nVmHWM:\t   41234 kB\nVmRSS:\t   30120 kB\nThreads:\t9\n"
	tests := []struct {
		field   string
		want    int64
		wantErr bool
	}{
		{"VmRSS", 30120, false},
		{"VmHWM", 41234, false},
		{"VmSwap", 0, true},
	}
	for _, tt := range tests {
		got, err := parseStatusKB(status, tt.field)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseStatusKB(%s) = %d, %v, want %d, error %v", tt.field, got, err, tt.want, tt.wantErr)
		}
	}
}
