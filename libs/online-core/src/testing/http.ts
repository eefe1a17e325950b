// Test helper: a response body as JSON, typed loosely (tests assert on its shape).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const jsonOf = async (res: Response | Promise<Response>): Promise<any> => (await res).json();
