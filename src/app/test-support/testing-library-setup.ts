import { configure } from '@testing-library/react';

// findBy*/waitFor give up after 1 s by default: too short for a 2-core CI machine running the suites
// next to each other (a profile test timed out there waiting for its token fetch). Not a speed check.
configure({ asyncUtilTimeout: 5_000 });
