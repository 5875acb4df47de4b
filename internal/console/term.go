package console
