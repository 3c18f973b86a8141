// Integration tests wait on real brokers and processes; each still polls with its own deadline.
jest.setTimeout(180_000);
