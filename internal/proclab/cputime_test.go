package proclab

import "testing"

func TestParseStatTicks(t *testing.T) {
	tests := []struct {
		line    string
		want    int64
		wantErr bool
	}{
		{"4242 (teammemd) S 1 4242 4242 0 -1 4194560 2114 0 0 0 150 37 0 0 20 0 9 0 123 0 0", 187, false},
		{"7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 0 0", 11, false},
		{"7 (short) S 1 2 3", 0, true},
		{"no command name", 0, true},
		{"7 (x) S 1 7 7 0 -1 0 0 0 0 0 five 6 0", 0, true},
	}
	for _, tt := range tests {
		got, err := parseStatTicks(tt.line)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseStatTicks(%q) = %d, %v, want %d, error %v", tt.line, got, err, tt.want, tt.wantErr)
		}
	}
}
