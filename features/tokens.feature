@tokens
Feature: Personal access tokens
  A personal access token stands for its user and carries no privileges of its own: every
  request is authorized on what the user may do at that moment, so granting or taking away
  a privilege changes what an existing token can do on the very next request.
  Someone granted GENERATE_PERSONAL_ACCESS_TOKENS (or MANAGE_ACCESS_TOKENS) creates tokens
  for themself, and only for themself. The raw token is shown once, in the answer that
  creates it, and never again. People list and revoke their own tokens; a revoked token
  stops working at once.

  Rule: A token can do what its user may do, and nothing more

    Background:
      Given Ann holds a personal access token

    @smoke
    Scenario: A token can do what its user may do
      Given Ann is granted CREATE_TAGS
      When Ann creates a tag
      Then the tag exists with its name and description

    @core @policies
    Scenario: A token cannot do what its user may not do
      When Ann grants herself every platform privilege with a new policy
      Then Ann is rejected as unauthorized

    @core @policies
    Scenario: A privilege granted by a new policy works with an existing token at once
      Given Ann cannot create a tag
      When Ann is granted CREATE_TAGS
      Then Ann can create a tag

    @core @policies
    Scenario: Setting the granting policy INACTIVE takes the privilege away at once
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is set INACTIVE
      Then Ann can no longer create a tag

    @core @policies
    Scenario: Deleting the granting policy takes the privilege away at once
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is deleted
      Then Ann can no longer create a tag

  Rule: Only people allowed to generate tokens create them, and only for themselves

    # Every user may generate tokens through a policy the service starts with. This
    # scenario switches such policies off while it runs, so it runs alone.
    @core @exclusive
    Scenario: Someone not allowed to generate tokens cannot create one
      Given Ann holds a personal access token
      And no policy lets every user generate personal access tokens
      When Ann creates a personal access token for herself
      Then Ann is rejected as unauthorized

    @smoke
    Scenario: Someone allowed to generate tokens creates one for themself
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token acts as Ann
      And the new token is described with Ann as its actor and Ann as its owner

    @core
    Scenario: A token is a JWT signed with HS256 that names its user
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token is a JWT signed with HS256 that names Ann

    @core
    Scenario: Someone allowed to generate tokens cannot create one for someone else
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      And Bob is a user
      When Ann creates a personal access token for Bob
      Then Ann is rejected as unauthorized
      And no token was created for Bob

    @core
    Scenario: The raw token is shown only in the answer that creates it
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the answer holds the raw token
      And the raw token appears in no token list and no token metadata

  Rule: People list and revoke their own tokens

    Background:
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS

    @core
    Scenario: Someone lists their own tokens
      Given Ann has created a personal access token for herself
      When Ann lists her own tokens
      Then the list includes the new token

    @core
    Scenario: Listing tokens without saying whose is refused
      Given Ann has created a personal access token for herself
      When Ann lists tokens without saying whose
      Then Ann is rejected as unauthorized

    @core
    Scenario: Listing someone else's tokens is refused
      Given Bob holds a personal access token
      And Bob is granted GENERATE_PERSONAL_ACCESS_TOKENS
      And Bob has created a personal access token for himself
      When Ann lists the tokens Bob owns
      Then Ann is rejected as unauthorized

    @core
    Scenario: Someone revokes their own token and it stops working at once
      Given Ann has created a personal access token for herself
      And the new token acts as Ann
      When Ann revokes the new token
      Then the new token is refused
      And Ann's own token list does not include the new token
