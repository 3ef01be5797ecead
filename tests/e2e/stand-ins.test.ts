// The end-to-end stand-ins checked on their own, so a failing account flow points at the product and
// not at the harness: the SMTP sink decodes what nodemailer really sends (quoted-printable long
// lines, encoded subjects) and the OIDC stand-in runs a code flow with state and PKCE.

import { createHash, randomBytes } from 'node:crypto';

import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { linksIn, startMailSink, verificationLink, type MailSink } from './mail-sink';
import { startOidcStandIn, type OidcStandIn } from '../../server/test-support/oauth-stand-ins';

describe('the SMTP sink', () => {
  let sink: MailSink;
  beforeAll(async () => {
    sink = await startMailSink();
  });
  afterAll(async () => sink.stop());

  it('catches a mail sent over SMTP and gives back its decoded link', async () => {
    // A token long enough that nodemailer folds the line with quoted-printable soft breaks and
    // encodes '=' as =3D: the link must come back whole.
    const link = `http://127.0.0.1:1/api/users/verify-email?token=${'a1B2'.repeat(20)}`;
    const transport = nodemailer.createTransport(sink.url);
    await transport.sendMail({
      from: 'studio@example.com',
      to: 'Ada@Example.com',
      subject: 'Vérifiez votre adresse',
      text: `Hello Ada,\n\nOpen this link to verify your e-mail: ${link}\n\nIt expires in 24 hours.`,
    });
    transport.close();
    expect(sink.mails[0]!.raw).toMatch(/quoted-printable/i);
    await expect(verificationLink(sink, 'ada@example.com')).resolves.toBe(link);
    const mail = await sink.waitForMail('ada@example.com');
    expect(mail.subject).toBe('Vérifiez votre adresse');
    expect(linksIn(mail)).toEqual([link]);
  });

  it('says what it caught when the awaited mail does not come', async () => {
    await expect(sink.waitForMail('nobody@example.com', undefined, 200)).rejects.toThrow(
      /no mail to nobody@example.com within 200 ms; caught:\n {2}ada@example.com: Vérifiez/,
    );
  });
});

describe('the OpenID Connect stand-in', () => {
  let provider: OidcStandIn;
  beforeAll(async () => {
    provider = await startOidcStandIn();
  });
  afterAll(async () => provider.stop());

  it('runs the authorization-code flow with PKCE and reports the identity set by the test', async () => {
    provider.signInAs({ sub: 'g-42', email: 'grace@example.com', email_verified: true, name: 'Grace' });
    const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as {
      authorization_endpoint: string;
      token_endpoint: string;
      userinfo_endpoint: string;
    };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'studio',
      redirect_uri: 'http://127.0.0.1:1/api/oauth2/callback/google',
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const redirect = await fetch(authorize, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const back = new URL(redirect.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('state-1');
    expect(provider.authorizeRequests.at(-1)?.get('code_challenge')).toBe(challenge);

    const exchange = async (codeVerifier: string) =>
      fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: 'http://127.0.0.1:1/api/oauth2/callback/google',
          client_id: 'studio',
          code_verifier: codeVerifier,
        }),
      });
    const tokens = (await (await exchange(verifier)).json()) as { access_token: string; id_token: string };
    const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ sub: 'g-42', email: 'grace@example.com', email_verified: true });
    const userinfo = await fetch(discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await userinfo.json()).toEqual({
      sub: 'g-42',
      email: 'grace@example.com',
      email_verified: true,
      name: 'Grace',
    });
  });
});
